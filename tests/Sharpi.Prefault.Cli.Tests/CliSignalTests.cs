using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>SIGINT and SIGTERM end a command its own way: what was done is printed, and the exit code says which signal.</summary>
public sealed class CliSignalTests
{
    /// <summary>
    /// 1 GiB of real bytes, written once for both signals and deleted when the run ends: this class's own, so no other
    /// test warms it. (A sparse file no longer serves: the sweep leaves holes out, and a file of holes is done at once.)
    /// </summary>
    private static readonly Lazy<TestFile> ColdFile = new(() =>
    {
        TestFile file = TestFile.Create(1L << 30);
        AppDomain.CurrentDomain.ProcessExit += (_, _) => file.Dispose();
        return file;
    });

    [ReadThrottleTheory]
    [InlineData("INT", 130)]
    [InlineData("TERM", 143)]
    public void Touch_OnASignal_PrintsWhatWasDoneAndExitsWithTheSignalsCode(string signal, int exitCode)
    {
        // 1 GiB of real bytes, cold, read at 128 MiB/s at most (8 s; unthrottled, a VM whose host still caches the
        // file read it in half a second, before the signal landed): the signal lands mid-sweep, after the first
        // progress line; it stops the sweep after the chunks in flight.
        ColdFile.Value.Evict();
        using var throttle = ReadThrottle.Create(ColdFile.Value.Path, 128 * TestFile.MiB);
        using CliProcess tool = CliProcess.StartShell($"echo $$ > {throttle.ProcsFile} && exec $TOOL touch {ColdFile.Value.Path} --gate always");
        Assert.True(tool.WaitFor("progress:", TimeSpan.FromSeconds(20)), tool.Err);
        tool.Signal(signal);
        CliRun run = tool.Wait(TimeSpan.FromSeconds(20));

        NoStackTrace.In(run);
        Assert.Equal(exitCode, run.ExitCode);
        Assert.StartsWith("cancelled: touched ", run.Out, StringComparison.Ordinal);
        Assert.Contains("not done", run.Out);
    }

    [LockableTheory(TestFile.MiB)]
    [InlineData("INT")]
    [InlineData("TERM")]
    public void Lock_OnASignal_UnlocksRemovesThePidFileAndExitsWithZero(string signal)
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        string pidFile = file.Path + ".pid";

        using CliProcess tool = CliProcess.Start(["lock", file.Path, "--pidfile", pidFile]);
        Assert.True(tool.WaitFor("holding", TimeSpan.FromSeconds(20)), tool.Err);
        Assert.Equal(tool.Id.ToString(System.Globalization.CultureInfo.InvariantCulture), File.ReadAllText(pidFile).Trim());
        tool.Signal(signal);
        CliRun run = tool.Wait(TimeSpan.FromSeconds(20));

        NoStackTrace.In(run);
        Assert.Equal(0, run.ExitCode);
        Assert.Contains("unlocked 1.00 MiB", run.Out);
        Assert.False(File.Exists(pidFile));
    }

    /// <summary>
    /// <c>sharpi-prefault lock FILE &amp;</c> in a script: POSIX has a non-interactive shell start its background jobs with
    /// SIGINT ignored (here made explicit with <c>trap '' INT</c>, which exec keeps), and no handler undoes that, so
    /// Ctrl+C and <c>kill -INT</c> cannot end it. The lock says so and names its id; SIGTERM to the id in its pid file
    /// (<c>kill "$(cat PIDFILE)"</c>, as docs/cli.md says) unlocks, removes the pid file and exits 0.
    /// </summary>
    [LockableFact(TestFile.MiB)]
    public void Lock_StartedWithSigintIgnored_SaysSo_AndEndsCleanlyOnSigtermToItsPidFile()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        string pidFile = file.Path + ".pid";

        using CliProcess tool = CliProcess.StartShell($"trap '' INT; exec $TOOL lock '{file.Path}' --pidfile '{pidFile}'");
        Assert.True(tool.WaitFor("holding", TimeSpan.FromSeconds(20)), tool.Err);
        string pid = File.ReadAllText(pidFile).Trim();
        Assert.Equal(tool.Id.ToString(System.Globalization.CultureInfo.InvariantCulture), pid);
        Assert.True(SigintIgnored(pid), "the child must run with SIGINT ignored for this test to mean anything");
        Assert.Contains($"holding until SIGTERM (kill {pid}); SIGINT and Ctrl+C are ignored", tool.Out, StringComparison.Ordinal);

        using (var kill = System.Diagnostics.Process.Start("sh", ["-c", $"kill \"$(cat '{pidFile}')\""]))
        {
            kill.WaitForExit();
            Assert.Equal(0, kill.ExitCode);
        }

        CliRun run = tool.Wait(TimeSpan.FromSeconds(20));

        NoStackTrace.In(run);
        Assert.Equal(0, run.ExitCode);
        Assert.Contains("unlocked 1.00 MiB", run.Out);
        Assert.False(File.Exists(pidFile));
    }

    /// <summary>SigIgn of /proc/PID/status: the signals the process ignores, a hex mask with bit N-1 for signal N.</summary>
    private static bool SigintIgnored(string pid)
    {
        string line = File.ReadLines($"/proc/{pid}/status").Single(l => l.StartsWith("SigIgn:", StringComparison.Ordinal));
        ulong mask = ulong.Parse(line["SigIgn:".Length..].Trim(), System.Globalization.NumberStyles.HexNumber, System.Globalization.CultureInfo.InvariantCulture);
        return (mask & (1UL << 1)) != 0;
    }
}
