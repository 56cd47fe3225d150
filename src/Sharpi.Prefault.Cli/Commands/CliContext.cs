using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault.Cli.Commands;

/// <summary>Where one command writes, and the failures it has reported (which decide its exit code).</summary>
internal sealed class CliContext
{
    private readonly bool _errIsConsole;
    private readonly List<FailureJson> _failures = [];

    public CliContext(TextWriter output, TextWriter error)
    {
        Out = output;
        _errIsConsole = ReferenceEquals(error, Console.Error);
        Err = _errIsConsole ? error : TextWriter.Synchronized(error); // Console.Error is synchronized already
        Logger = new StderrLogger(Err);
    }

    public static CliContext From(ParseResult parse) =>
        new(parse.InvocationConfiguration.Output, parse.InvocationConfiguration.Error);

    public TextWriter Out { get; }

    /// <summary>stderr, safe to write from the sweep's workers (progress) and the command's thread at once.</summary>
    public TextWriter Err { get; }

    /// <summary>Hands the library's warnings (a bad <c>SHARPI_PREFAULT_RAM_FRACTION</c>, say) to stderr.</summary>
    public ILogger Logger { get; }

    /// <summary>True when stderr is a terminal: progress redraws one line there, and prints plain lines otherwise.</summary>
    public bool ErrIsTerminal => _errIsConsole && !Console.IsErrorRedirected;

    public int FailureCount => _failures.Count;

    /// <summary>What failed, for a --json document that has nothing else to say.</summary>
    public IReadOnlyList<FailureJson> Failures => _failures;

    public int ExitCode => FailureCount == 0 ? ExitCodes.Success : ExitCodes.Partial;

    /// <summary>Reports what failed and why, one line on stderr, and marks the run partial.</summary>
    public void Fail(string subject, string reason)
    {
        _failures.Add(new FailureJson(subject, reason));
        Err.WriteLine($"{CliApp.Name}: {SafeText.Escape(subject)}: {SafeText.Escape(reason)}");
    }

    /// <summary>A note on stderr that does not change the exit code.</summary>
    public void Note(string subject, string message) => Err.WriteLine($"{CliApp.Name}: {SafeText.Escape(subject)}: {SafeText.Escape(message)}");

    /// <summary>
    /// True when <c>SHARPI_PREFAULT</c> switches prefaulting off (<c>0</c>, <c>off</c>, <c>false</c>: the library's parse):
    /// the operators' kill switch, which wins over every option, and which the tool names when it does nothing.
    /// </summary>
    public static bool KillSwitchIsOn(out string reason)
    {
        bool off = OperatorSettings.IsOff(out string value);
        reason = off ? $"SHARPI_PREFAULT={value}: prefault switched off by the operator" : string.Empty;
        return off;
    }
}
