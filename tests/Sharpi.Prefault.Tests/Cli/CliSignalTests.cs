using Sharpi.Prefault.Tests.Locking;
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

    [LinuxTheory]
    [InlineData("INT", 130)]
    [InlineData("TERM", 143)]
    public void Touch_OnASignal_PrintsWhatWasDoneAndExitsWithTheSignalsCode(string signal, int exitCode)
    {
        // 1 GiB of real bytes, cold (3 s to read here): the signal lands mid-sweep, after the first progress line;
        // it stops the sweep after the chunks in flight.
        ColdFile.Value.Evict();
        using CliProcess tool = CliProcess.Start(["touch", ColdFile.Value.Path, "--gate", "always"]);
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
}
