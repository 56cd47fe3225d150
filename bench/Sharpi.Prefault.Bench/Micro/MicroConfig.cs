using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The micro-benchmarks' setup. BenchmarkDotNet 0.14.0 predates .NET 10 and its default toolchain builds a child
/// project per run (slow on two cores, and fragile for a moniker it does not know), so <see cref="MicroCommand"/>
/// adds <c>--inProcess</c> (InProcessEmitToolchain) unless the caller chose a toolchain.
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
