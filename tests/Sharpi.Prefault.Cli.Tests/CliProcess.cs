using System.Diagnostics;
using System.Text;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// The built tool run as a child process (<c>dotnet sharpi-prefault.dll</c>): what signals, a terminal, file-descriptor
/// limits and environment variables need (none of those can be given to an in-process run alone).
/// </summary>
internal sealed class CliProcess : IDisposable
{
    public static readonly string ToolPath = Path.Combine(AppContext.BaseDirectory, "sharpi-prefault.dll");

    private readonly Process _process;
    private readonly StringBuilder _out = new();
    private readonly StringBuilder _err = new();

    private CliProcess(Process process)
    {
        _process = process;
    }

    public int Id => _process.Id;

    public string Out
    {
        get
        {
            lock (_out)
            {
                return _out.ToString();
            }
        }
    }

    public string Err
    {
        get
        {
            lock (_err)
            {
                return _err.ToString();
            }
        }
    }

    /// <summary>Starts the tool with <paramref name="args"/>; <paramref name="environment"/> values of null unset a variable.</summary>
    public static CliProcess Start(IEnumerable<string> args, IReadOnlyDictionary<string, string?>? environment = null) =>
        StartRaw("dotnet", [ToolPath, .. args], environment);

    /// <summary>Runs a shell command line in which <c>$TOOL</c> runs the tool (for <c>ulimit</c>, <c>&gt;&amp;-</c>, pipes).</summary>
    public static CliProcess StartShell(string commandLine, IReadOnlyDictionary<string, string?>? environment = null)
    {
        var env = new Dictionary<string, string?>(environment ?? new Dictionary<string, string?>()) { ["TOOL"] = $"dotnet {ToolPath}" };
        return StartRaw("bash", ["-c", commandLine], env);
    }

    private static CliProcess StartRaw(string fileName, IEnumerable<string> args, IReadOnlyDictionary<string, string?>? environment)
    {
        var info = new ProcessStartInfo(fileName)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
        };
        foreach (string arg in args)
        {
            info.ArgumentList.Add(arg);
        }

        info.Environment.Remove("SHARPI_PREFAULT");
        info.Environment.Remove("SHARPI_PREFAULT_RAM_FRACTION");
        foreach ((string name, string? value) in environment ?? new Dictionary<string, string?>())
        {
            if (value is null)
            {
                info.Environment.Remove(name);
            }
            else
            {
                info.Environment[name] = value;
            }
        }

        var process = new Process { StartInfo = info };
        var run = new CliProcess(process);
        process.OutputDataReceived += (_, e) => Append(run._out, e.Data);
        process.ErrorDataReceived += (_, e) => Append(run._err, e.Data);
        process.Start();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return run;
    }

    /// <summary>Runs the tool to its end (at most <paramref name="timeout"/>; killed and failed past it).</summary>
    public static CliRun Run(IEnumerable<string> args, IReadOnlyDictionary<string, string?>? environment = null, TimeSpan? timeout = null)
    {
        using CliProcess process = Start(args, environment);
        return process.Wait(timeout ?? TimeSpan.FromSeconds(30));
    }

    public static CliRun RunShell(string commandLine, IReadOnlyDictionary<string, string?>? environment = null, TimeSpan? timeout = null)
    {
        using CliProcess process = StartShell(commandLine, environment);
        return process.Wait(timeout ?? TimeSpan.FromSeconds(30));
    }

    public CliRun Wait(TimeSpan timeout)
    {
        if (!_process.WaitForExit(timeout))
        {
            _process.Kill(entireProcessTree: true);
            _process.WaitForExit();
            Assert.Fail($"the tool did not finish within {timeout.TotalSeconds} s (a hang). stderr so far: {Err}");
        }

        _process.WaitForExit(); // drains the redirected streams
        return new CliRun(_process.ExitCode, Out, Err);
    }

    /// <summary>Waits until stdout or stderr holds <paramref name="text"/>; false on timeout or exit.</summary>
    public bool WaitFor(string text, TimeSpan timeout) =>
        WaitUntil(() => Out.Contains(text, StringComparison.Ordinal) || Err.Contains(text, StringComparison.Ordinal), timeout);

    /// <summary>Waits until <paramref name="condition"/> holds while the tool runs; false on timeout or exit.</summary>
    public bool WaitUntil(Func<bool> condition, TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < timeout)
        {
            if (condition())
            {
                return true;
            }

            if (_process.HasExited)
            {
                return false;
            }

            Thread.Sleep(10);
        }

        return false;
    }

    /// <summary>Sends a signal by name (INT, TERM) with kill(1).</summary>
    public void Signal(string name)
    {
        using var kill = Process.Start("kill", ["-" + name, _process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
        kill.WaitForExit();
    }

    private static void Append(StringBuilder builder, string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (builder)
        {
            builder.Append(line).Append('\n');
        }
    }

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            _process.WaitForExit();
        }

        _process.Dispose();
    }
}

/// <summary>What every run must show: no stack trace, whatever it was given.</summary>
internal static class NoStackTrace
{
    public static void In(CliRun run)
    {
        Assert.DoesNotContain("   at ", run.Err);
        Assert.DoesNotContain("Unhandled exception", run.Err);
        Assert.DoesNotContain("Exception:", run.Err);
    }
}
