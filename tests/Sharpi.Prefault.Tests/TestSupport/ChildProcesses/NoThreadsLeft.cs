namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// Runs <see cref="ChildCases.NoThreadsLeft"/> in a child process inside a real pids cgroup at its pids.max, over a
/// 1 MiB file, and checks that the case is real (no thread could start) and that the child ended normally.
/// </summary>
internal static class NoThreadsLeft
{
    /// <param name="mode">
    /// What the child does with no thread left: "start" (MmapPrefault.Start), "read" (DirectFileReader), "warm"
    /// (PageCache.WarmAsync), "warm-one" (the same with room for one thread).
    /// </param>
    /// <param name="output">The test's output.</param>
    /// <param name="fileBytes">The file's size (1 MiB unless given).</param>
    internal static CliRun Run(string mode, ITestOutputHelper output, long fileBytes = TestFile.MiB)
    {
        using PidsCgroup group = PidsCgroup.Create();
        using TestFile file = TestFile.Create(fileBytes);

        CliRun run = ChildProcess.Run([ChildCases.NoThreadsLeft, group.Path, file.Path, mode], group.ProcsFile, TimeSpan.FromSeconds(60));

        output.WriteLine($"exit {run.ExitCode}\n{run.Out}\n{run.Err}");
        Assert.Equal("True", ChildProcess.Value(run, "threadStartRefused")); // the case is real: no thread could start
        Assert.Equal(0, run.ExitCode);
        return run;
    }

    internal static string OneMiB { get; } = TestFile.MiB.ToString(System.Globalization.CultureInfo.InvariantCulture);
}
