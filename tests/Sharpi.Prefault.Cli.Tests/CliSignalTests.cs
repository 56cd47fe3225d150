namespace Sharpi.Prefault.Tests.Cli;

/// <summary>SIGINT and SIGTERM end a command its own way: what was done is printed, and the exit code says which signal.</summary>
public sealed class CliSignalTests(CliSignalTests.ColdFile cold) : IClassFixture<CliSignalTests.ColdFile>
{
    /// <summary>
    /// 384 MiB of real bytes, written once for both signals (when the first needs it) and deleted after the class:
    /// this class's own, so no other test warms it. (A sparse file no longer serves: the sweep leaves holes out, and a
    /// file of holes is done at once. Deleted at process exit instead, it was left behind when the test host was ended.)
    /// </summary>
    public sealed class ColdFile : IDisposable
    {
        private readonly Lazy<TestFile> _file = new(() => TestFile.Create(384 * TestFile.MiB));

        public TestFile File => _file.Value;

        public void Dispose()
        {
            if (_file.IsValueCreated)
            {
                _file.Value.Dispose();
            }
        }
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.IoThrottle))]
    [InlineData("INT", 130)]
    [InlineData("TERM", 143)]
    public void Touch_OnASignal_PrintsWhatWasDoneAndExitsWithTheSignalsCode(string signal, int exitCode)
    {
        // The cold file is read at 64 MiB/s (a cgroup's cap): 6 s, however fast the disk and however busy the machine
        // (uncapped it was read in 0.35 s here, before a signal could land). 12 chunks of 32 MiB on 8 threads (the
        // default for the 2 cores the tool is told it has): the signal lands once the sweep has read 4 MiB of the
        // file, while 4 chunks wait for a thread (none is free before a chunk is done: 256 MiB in on a fair sweep,
        // 128 MiB at the least for all 4). The tool takes it at once (its main thread only waits; sweeping, it took a
        // signal only once its chunk was in, when the other threads had taken the rest) and stops the sweep after the
        // chunks in flight.
        TestFile file = cold.File;
        EvictWhole(file);
        using IoThrottleCgroup group = IoThrottleCgroup.Create(64 * TestFile.MiB);
        using CliProcess tool = CliProcess.StartShell(
            $"echo $$ > '{group.ProcsFile}' && exec $TOOL touch '{file.Path}' --gate always",
            new Dictionary<string, string?> { ["DOTNET_PROCESSOR_COUNT"] = "2" });
        Assert.True(tool.WaitUntil(() => Residency.OfFile(file.Path).ResidentBytes >= 4 * TestFile.MiB, TimeSpan.FromSeconds(60)), tool.Err);
        tool.Signal(signal);
        CliRun run = tool.Wait(TimeSpan.FromSeconds(60));

        NoStackTrace.In(run);
        Assert.Equal(exitCode, run.ExitCode);
        Assert.StartsWith("cancelled: touched ", run.Out, StringComparison.Ordinal);
        Assert.Contains("not done", run.Out);
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
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
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
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

    /// <summary>
    /// Evicts the file until none of it is cached: the other case's last read-ahead (8 MiB at read_ahead_kb 8192) may
    /// still be queued behind its group's cap when that tool exits, and lands after a first eviction.
    /// </summary>
    private static void EvictWhole(TestFile file)
    {
        for (int attempt = 0; attempt < 200; attempt++)
        {
            file.Evict();
            if (Residency.OfFile(file.Path).ResidentBytes == 0)
            {
                return;
            }

            Thread.Sleep(50);
        }

        Assert.Fail("the file never left the page cache");
    }

    /// <summary>SigIgn of /proc/PID/status: the signals the process ignores, a hex mask with bit N-1 for signal N.</summary>
    private static bool SigintIgnored(string pid)
    {
        string line = File.ReadLines($"/proc/{pid}/status").Single(l => l.StartsWith("SigIgn:", StringComparison.Ordinal));
        ulong mask = ulong.Parse(line["SigIgn:".Length..].Trim(), System.Globalization.NumberStyles.HexNumber, System.Globalization.CultureInfo.InvariantCulture);
        return (mask & (1UL << 1)) != 0;
    }
}
