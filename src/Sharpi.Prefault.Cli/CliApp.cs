using System.CommandLine;
using System.CommandLine.Parsing;
using Sharpi.Prefault.Cli.Commands;

namespace Sharpi.Prefault.Cli;

/// <summary>The exit codes every command keeps to.</summary>
internal static class ExitCodes
{
    /// <summary>Everything asked for was done.</summary>
    public const int Success = 0;

    /// <summary>Some files or regions failed (each named on stderr); the rest was done.</summary>
    public const int Partial = 1;

    /// <summary>The command line was wrong; nothing was done.</summary>
    public const int Usage = 2;
}

/// <summary>The command tree and the entry point, separate from <c>Program</c> so tests run the tool in-process.</summary>
internal static class CliApp
{
    public const string Name = "sharpi-prefault";

    public static RootCommand Build() =>
        new("sharpi-prefault: tensor-aware prefault, residency, eviction and locking of model files (GGUF, safetensors) and plain files.")
        {
            TouchCommand.Create(),
            ResidentCommand.Create(),
            EvictCommand.Create(),
            TensorsCommand.Create(),
            LockCommand.Create(),
        };

    public static int Run(string[] args, TextWriter output, TextWriter error) =>
        RunAsync(args, output, error, CancellationToken.None).GetAwaiter().GetResult();

    public static async Task<int> RunAsync(string[] args, TextWriter output, TextWriter error, CancellationToken cancellationToken)
    {
        ParseResult parsed = Build().Parse(args);

        // System.CommandLine answers a parse error with 1; scripts need usage errors (2) apart from partial failures (1).
        if (parsed.Errors.Count > 0)
        {
            foreach (ParseError parseError in parsed.Errors)
            {
                await error.WriteLineAsync($"{Name}: {parseError.Message}").ConfigureAwait(false);
            }

            await error.WriteLineAsync($"Run '{Name} --help' for usage.").ConfigureAwait(false);
            return ExitCodes.Usage;
        }

        var configuration = new InvocationConfiguration { Output = output, Error = error };
        return await parsed.InvokeAsync(configuration, cancellationToken).ConfigureAwait(false);
    }
}
