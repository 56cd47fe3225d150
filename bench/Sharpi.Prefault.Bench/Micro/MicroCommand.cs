using System.CommandLine;
using BenchmarkDotNet.Running;

namespace Sharpi.Prefault.Bench;

/// <summary><c>micro [BenchmarkDotNet args]</c>: hands everything after the command to BenchmarkDotNet's switcher.</summary>
internal static class MicroCommand
{
    internal static Command Create()
    {
        var command = new Command("micro", "BenchmarkDotNet micro-benchmarks of the library's fixed costs; the rest of the line goes to BenchmarkDotNet (e.g. --filter '*' --job short).")
        {
            TreatUnmatchedTokensAsErrors = false,
        };
        command.SetAction(static parse =>
        {
            string[] rest = MicroConfig.WithInProcess([.. parse.UnmatchedTokens]);
            BenchmarkSwitcher.FromAssembly(typeof(MicroCommand).Assembly).Run(rest, MicroConfig.Create());
            return 0;
        });
        return command;
    }
}
