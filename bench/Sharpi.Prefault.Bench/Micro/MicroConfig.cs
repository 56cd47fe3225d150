using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The micro-benchmarks' setup. BenchmarkDotNet's default toolchain builds and starts a child project per benchmark
/// (minutes of builds on two cores), so <see cref="MicroCommand"/> adds <c>--inProcess</c> (InProcessEmitToolchain)
/// unless the caller chose a toolchain.
/// </summary>
internal static class MicroConfig
{
    internal static IConfig Create() => DefaultConfig.Instance
        .AddDiagnoser(MemoryDiagnoser.Default)
        .WithOptions(ConfigOptions.JoinSummary);

    internal static string[] WithInProcess(string[] args)
    {
        foreach (string arg in args)
        {
            if (arg.Equals("--inProcess", StringComparison.OrdinalIgnoreCase) || arg.Equals("-i", StringComparison.Ordinal)
                || arg.Equals("--runtimes", StringComparison.OrdinalIgnoreCase) || arg.Equals("-r", StringComparison.Ordinal))
            {
                return args;
            }
        }

        return ["--inProcess", .. args];
    }
}
