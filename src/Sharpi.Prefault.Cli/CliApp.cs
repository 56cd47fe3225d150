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

    /// <summary>SIGINT (Ctrl+C) stopped the work part way; what was done is printed (128 + 2, as a shell reports it).</summary>
    public const int Interrupted = 130;

    /// <summary>SIGTERM stopped the work part way (128 + 15).</summary>
    public const int Terminated = 143;
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
            KeepCommand.Create(),
        };

    /// <summary>True for the commands that end their own way on SIGINT/SIGTERM: each says so by being an <see cref="InterruptibleCommand"/>.</summary>
    public static bool FinishesOnInterruption(string[] args) =>
        Build().Parse(args).CommandResult.Command is InterruptibleCommand;

    public static int Run(string[] args, TextWriter output, TextWriter error) =>
        RunAsync(args, output, error, CancellationToken.None).GetAwaiter().GetResult();

    public static async Task<int> RunAsync(string[] args, TextWriter output, TextWriter error, CancellationToken cancellationToken)
    {
        ParseResult parsed = Build().Parse(args);

        // System.CommandLine answers a parse error with 1; scripts need usage errors (2) apart from partial failures (1).
        if (parsed.Errors.Count > 0)
        {
            foreach (string message in UsageErrors(parsed))
            {
                await error.WriteLineAsync($"{Name}: {message}").ConfigureAwait(false);
            }

            await error.WriteLineAsync($"Run '{Name} --help' for usage.").ConfigureAwait(false);
            return ExitCodes.Usage;
        }

        // Signals are Program's (Interruption): the token it passes is the one the commands see. The default exception
        // handler prints stack traces; anything that escapes a command is reported in one line instead.
        var configuration = new InvocationConfiguration
        {
            Output = output,
            Error = error,
            ProcessTerminationTimeout = null,
            EnableDefaultExceptionHandler = false,
        };
        try
        {
            return await parsed.InvokeAsync(configuration, cancellationToken).ConfigureAwait(false);
        }
#pragma warning disable CA1031 // The last line of defence: whatever a command failed to foresee is one message, never a stack trace.
        catch (Exception e)
#pragma warning restore CA1031
        {
            return ReportUnexpected(error, e);
        }
    }

    /// <summary>What was wrong with the command line, once.</summary>
    internal static IEnumerable<string> UsageErrors(ParseResult parsed)
    {
        if (parsed.CommandResult.Command is RootCommand root && parsed.UnmatchedTokens.Count > 0)
        {
            string first = parsed.UnmatchedTokens[0];
            string commands = string.Join(", ", root.Subcommands.Select(c => c.Name));
            return [first.StartsWith('-')
                ? $"unknown option '{Output.SafeText.Escape(first)}'; give a command first: {commands}."
                : $"unknown command '{Output.SafeText.Escape(first)}'; the commands are {commands}."];
        }

        // The parser's messages quote the tokens as given (a file name out of a shell glob, an option's value): escaped,
        // as every other line the tool prints, so none can send an escape sequence to the terminal.
        return parsed.Errors.Select(e => Output.SafeText.Escape(e.Message)).Distinct(StringComparer.Ordinal);
    }

    private static int ReportUnexpected(TextWriter error, Exception e)
    {
        string what = e switch
        {
            Output.OutputUnavailableException => "cannot write to stdout (closed, full, or its reader gone)",
            IOException => "I/O error",
            _ => "internal error",
        };
        try
        {
            string type = e is IOException ? string.Empty : $" ({e.GetType().Name})";
            error.WriteLine($"{Name}: {what}: {Output.SafeText.Escape(e.Message)}{type}");
            error.Flush();
        }
        catch (IOException)
        {
            // stderr is gone too: the exit code is all that is left.
        }

        return ExitCodes.Partial;
    }
}
