using System.CommandLine;

namespace Sharpi.Prefault.Cli.Commands;

/// <summary>Where one command writes, and the failures it has reported (which decide its exit code).</summary>
internal sealed class CliContext(TextWriter output, TextWriter error)
{
    public static CliContext From(ParseResult parse) =>
        new(parse.InvocationConfiguration.Output, parse.InvocationConfiguration.Error);

    public TextWriter Out { get; } = output;

    public TextWriter Err { get; } = error;

    /// <summary>True when stderr is a terminal: progress redraws one line there, and prints plain lines otherwise.</summary>
    public bool ErrIsTerminal => ReferenceEquals(Err, Console.Error) && !Console.IsErrorRedirected;

    public int FailureCount { get; private set; }

    public int ExitCode => FailureCount == 0 ? ExitCodes.Success : ExitCodes.Partial;

    /// <summary>Reports what failed and why, one line on stderr, and marks the run partial.</summary>
    public void Fail(string subject, string reason)
    {
        FailureCount++;
        Err.WriteLine($"{CliApp.Name}: {subject}: {reason}");
    }

    /// <summary>A note on stderr that does not change the exit code.</summary>
    public void Note(string subject, string message) => Err.WriteLine($"{CliApp.Name}: {subject}: {message}");
}
