using Sharpi.Prefault.Tests.Locking;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>SIGINT and SIGTERM end a command its own way: what was done is printed, and the exit code says which signal.</summary>
public sealed class CliSignalTests
{
    [LinuxTheory]
    [InlineData("INT", 130)]
    [InlineData("TERM", 143)]
    public void Touch_OnASignal_PrintsWhatWasDoneAndExitsWithTheSignalsCode(string signal, int exitCode)
    {
        // 16 GiB of holes: the kernel fills them with zero pages, and no disk is written. Large, so the signal lands
        // mid-sweep (8 threads zero-fill 4 GiB in well under a second); the signal stops it after a few chunks.
        string path = Path.Combine(Path.GetTempPath(), $"sharpi-signal-{Guid.NewGuid():N}.bin");
        using (var stream = new FileStream(path, FileMode.CreateNew))
        {
            stream.SetLength(16L << 30);
        }

        try
        {
            using CliProcess tool = CliProcess.Start(["touch", path, "--gate", "always"]);
            Assert.True(tool.WaitFor("progress:", TimeSpan.FromSeconds(20)), tool.Err);
            tool.Signal(signal);
            CliRun run = tool.Wait(TimeSpan.FromSeconds(20));

            NoStackTrace.In(run);
            Assert.Equal(exitCode, run.ExitCode);
            Assert.StartsWith("cancelled: touched ", run.Out, StringComparison.Ordinal);
            Assert.Contains("not done", run.Out);
        }
        finally
        {
            File.Delete(path);
        }
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
