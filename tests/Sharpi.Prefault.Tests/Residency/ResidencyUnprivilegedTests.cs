namespace Sharpi.Prefault.Tests;

/// <summary>
/// The library in a process of a user who may read a root-owned 0644 file but not write it (a child run as nobody):
/// the kernel hides that file's page cache from it (cachestat: EPERM; mincore: every page "resident", see
/// mm/mincore.c can_do_mincore). Residency it cannot tell is unknown, never resident, and a run does the work.
/// The file's real residency is measured by the test host (root).
/// </summary>
public sealed class ResidencyUnprivilegedTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Unprivileged))]
    public void MeasureAndRun_OfAColdFileTheUserCannotWrite_CountNothingResidentThatIsNot_AndTheRunReadsItIn()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);

        CliRun child = RunAsNobody(ChildCases.MeasureAndRun, file);


        // Before the run: mincore said "all resident"; the library says unknown, and counts none resident.
        Assert.Equal(0, Long(child, "measureResident"));
        Assert.Equal(file.Length, Long(child, "measureUnknown"));
        Assert.Contains("cannot write", ChildProcess.Value(child, "measureError"), StringComparison.Ordinal);
        Assert.Equal(0, Long(child, "ofFileResident"));
        Assert.Equal(file.Length, Long(child, "ofFileUnknown"));

        // The run plans the unknown bytes as needed, sweeps them, and counts after it what its own page tables map.
        Assert.Equal(0, Long(child, "runAlreadyResident"));
        Assert.Equal(file.Length, Long(child, "runAlreadyResidentUnknown"));
        Assert.DoesNotContain("already resident", ChildProcess.Value(child, "runReason"), StringComparison.Ordinal);
        Assert.Equal(file.Length, Long(child, "runBytes"));
        Assert.Equal(file.Length, Long(child, "runResident"));
        Assert.Equal(0, Long(child, "runResidentUnknown"));
        Assert.Equal(file.Length, Long(child, "afterResident"));
        Assert.Equal(0, Long(child, "afterUnknown"));
        Assert.Equal(file.Length, Residency.OfFile(file.Path).ResidentBytes); // measured as root: the run read it in
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Unprivileged))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void Measure_AsRootWithoutCapabilities_OfAnotherUsersColdFile_CountsItUnknown_NotResident()
    {
        // Root without CAP_FOWNER and CAP_DAC_OVERRIDE (a container that drops them) gets the kernel's own EPERM from
        // cachestat for another user's 0644 file, and mincore's "all resident" for it: euid 0 alone does not make a
        // writer, and the EPERM is not a filter's.
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        NativeTestMethods.ChangeOwner(file.Path, (uint)Unprivileged.Uid, (uint)Unprivileged.Uid);
        File.SetUnixFileMode(file.Path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead | UnixFileMode.OtherRead);

        CliRun child = ChildProcess.Run([ChildCases.MeasureAndRun, file.Path], asRootWithoutCapabilities: true);

        Assert.True(child.ExitCode == 0, child.Err);
        Assert.Equal(0, Long(child, "measureResident"));
        Assert.Equal(file.Length, Long(child, "measureUnknown"));
        Assert.Equal(file.Length, Long(child, "afterResident")); // the run read it in, and what it maps here counts
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Unprivileged))]
    [System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
    public void MeasureAndRun_OfAFileTheUserMayWrite_IsMeasuredAsForRoot()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        File.SetUnixFileMode(file.Path, (UnixFileMode)Convert.ToInt32("666", 8));

        CliRun child = RunAsNobody(ChildCases.MeasureAndRun, file);

        Assert.Equal(0, Long(child, "measureResident"));
        Assert.Equal(0, Long(child, "measureUnknown"));
        Assert.Equal(string.Empty, ChildProcess.Value(child, "measureError"));
        Assert.Equal(0, Long(child, "runAlreadyResidentUnknown"));
        Assert.Equal(file.Length, Long(child, "runResident"));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Unprivileged))]
    public void Measure_OfAFileTheUserCannotWrite_BesideAnonymousMemory_CountsTheFileUnknown_NotResident()
    {
        // The range spans two mappings, so cachestat cannot answer for it and mincore counts it: the file's pages
        // must be taken out of mincore's "all resident" again.
        using TestFile file = TestFile.Create(4 * TestFile.MiB);

        CliRun child = RunAsNobody(ChildCases.MeasureBesideAnonymous, file);

        Assert.Equal(0, Long(child, "resident"));
        Assert.Equal(file.Length, Long(child, "unknown"));
    }

    /// <summary>Runs the child case over <paramref name="file"/> as nobody; the child must succeed.</summary>
    private static CliRun RunAsNobody(string childCase, TestFile file)
    {
        CliRun child = ChildProcess.Run([childCase, file.Path], asNobody: true);
        Assert.True(child.ExitCode == 0, child.Err);
        return child;
    }

    private static long Long(CliRun child, string key) => long.Parse(ChildProcess.Value(child, key), System.Globalization.CultureInfo.InvariantCulture);
}
