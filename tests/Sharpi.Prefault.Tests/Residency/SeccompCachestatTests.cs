namespace Sharpi.Prefault.Tests;

/// <summary>
/// A container profile that denies cachestat answers EPERM, as the kernel does for a file whose cache it hides from
/// this process. For a file this process may write, the kernel never hides it: the EPERM is the filter's, and the
/// file's cache must still be counted (with mincore), not reported unknown. Runs in a child under a real filter.
/// </summary>
public sealed class SeccompCachestatTests(ITestOutputHelper output)
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.SeccompCachestat))]
    public void Measure_WithCachestatRefusedByAFilter_StillCountsAWritableFilesCache()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        CliRun run = RunWithoutCachestat([file.Path]);

        Assert.Equal("True", ChildProcess.Value(run, "cachestatRefused")); // the case is real: the filter refused it
        Assert.Equal(file.Length.ToString(System.Globalization.CultureInfo.InvariantCulture), ChildProcess.Value(run, "resident"));
        Assert.Equal("0", ChildProcess.Value(run, "unknown"));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.SeccompCachestat), nameof(Requirements.Unprivileged))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void Measure_AfterAFilterRefusedCachestat_StillCountsAFileThatHidesItsCacheUnknown()
    {
        // As nobody: its own file first (the filter's EPERM, so cachestat is given up), then root's cold 0644 file,
        // whose cache the kernel hides from nobody: mincore answers "all resident" for it, which must be corrected.
        using TestFile mine = TestFile.Create(8 * TestFile.MiB);
        using TestFile roots = TestFile.Create(8 * TestFile.MiB);
        NativeTestMethods.ChangeOwner(mine.Path, (uint)Unprivileged.Uid, (uint)Unprivileged.Uid);

        CliRun run = RunWithoutCachestat([mine.Path, roots.Path], asNobody: true);

        Assert.Equal("True", ChildProcess.Value(run, "cachestatRefused"));
        Assert.Equal(mine.Length.ToString(System.Globalization.CultureInfo.InvariantCulture), ChildProcess.Value(run, "resident"));
        Assert.Equal("0", ChildProcess.Value(run, "hiddenResident"));
        Assert.Equal(roots.Length.ToString(System.Globalization.CultureInfo.InvariantCulture), ChildProcess.Value(run, "hiddenUnknown"));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.SeccompCachestat), nameof(Requirements.Unprivileged))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void Measure_AsRootWithoutCapabilities_AfterAFilterRefusedCachestat_CountsAnotherUsersFileUnknown()
    {
        // Without cachestat, who may write decides (as on a kernel before 6.5): root without CAP_FOWNER and
        // CAP_DAC_OVERRIDE may not write another user's 0644 file, so the kernel hides its cache; euid 0 alone said
        // "may write" and counted mincore's "all resident".
        using TestFile mine = TestFile.Create(8 * TestFile.MiB);
        using TestFile others = TestFile.Create(8 * TestFile.MiB);
        NativeTestMethods.ChangeOwner(others.Path, (uint)Unprivileged.Uid, (uint)Unprivileged.Uid);
        File.SetUnixFileMode(others.Path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead | UnixFileMode.OtherRead);

        CliRun run = RunWithoutCachestat([mine.Path, others.Path], asRootWithoutCapabilities: true);

        Assert.Equal("True", ChildProcess.Value(run, "cachestatRefused"));
        Assert.Equal(mine.Length.ToString(System.Globalization.CultureInfo.InvariantCulture), ChildProcess.Value(run, "resident")); // its own file: the owner sees
        Assert.Equal("0", ChildProcess.Value(run, "hiddenResident"));
        Assert.Equal(others.Length.ToString(System.Globalization.CultureInfo.InvariantCulture), ChildProcess.Value(run, "hiddenUnknown"));
    }

    /// <summary>Measures <paramref name="paths"/> in a child whose filter refuses cachestat; the child must finish.</summary>
    private CliRun RunWithoutCachestat(string[] paths, bool asNobody = false, bool asRootWithoutCapabilities = false)
    {
        CliRun run = ChildProcess.Run([ChildCases.ResidencyWithoutCachestat, .. paths], timeout: TimeSpan.FromSeconds(60), asNobody: asNobody,
            asRootWithoutCapabilities: asRootWithoutCapabilities);

        output.WriteLine($"exit {run.ExitCode}\n{run.Out}\n{run.Err}");
        Assert.True(run.ExitCode == 0 && run.Out.Contains("done", StringComparison.Ordinal), $"the child failed (exit {run.ExitCode})");
        return run;
    }
}
