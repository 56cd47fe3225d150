using System.IO.MemoryMappedFiles;
using System.Runtime.Versioning;
using Microsoft.Extensions.Logging.Abstractions;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// The trial on real files: units cut from the front of the set, a unit swept past a truncated end fails softly, and a
/// run large enough for a trial tries each candidate, says what each cost, and sweeps the rest with the choice.
/// </summary>
[SupportedOSPlatform("linux")]
public sealed class TrialSweepTests
{
    private const long MiB = 1024 * 1024;
    private const long Bytes = 96 * MiB;
    private static readonly nint Page = Environment.SystemPageSize;

    [Fact]
    public void Carve_CutsAWarmUpUnit_ThenBlocksWithGapsBetween_OnUnitBoundaries_AndLeavesTheRestWithTheirRegions()
    {
        nint unit = (nint)MechanismTrial.UnitBytes;
        MergedRegion[] regions =
        [
            new((16 * unit) + 4096, (18 * unit) + 8192, "a", 0), // starts off a boundary
            new(40 * unit, 60 * unit, "b", 1),
        ];

        (MergedRegion[] units, int[] unitParent, int[] blockOf, MergedRegion[] rest, int[] restParent) =
            TrialSweep.Carve(regions, blocks: 2, unitsEach: 2, gapBytes: 3 * unit);

        // The warm-up unit, block 0 (two units, the second the last bit of "a"), a gap of three units of "b", block 1.
        Assert.Equal([-1, 0, 0, 1, 1], blockOf);
        Assert.Equal([(16 * unit) + 4096, 17 * unit, 18 * unit, 43 * unit, 44 * unit], units.Select(u => u.Start));
        Assert.Equal([17 * unit, 18 * unit, (18 * unit) + 8192, 44 * unit, 45 * unit], units.Select(u => u.End));
        Assert.Equal([0, 0, 0, 1, 1], unitParent);
        Assert.Equal([new MergedRegion(40 * unit, 43 * unit, "b", 1), new MergedRegion(45 * unit, 60 * unit, "b", 1)], rest);
        Assert.Equal([1, 1], restParent);
    }

    [Theory]
    [InlineData(128 * 1024, 8L << 20)]
    [InlineData(8192 * 1024, 16L << 20)]
    [InlineData(1L << 30, 32L << 20)]
    public void GapBytes_IsTwiceTheReadAhead_Within8And32MiB(long readAhead, long expected) =>
        Assert.Equal(expected, TrialSweep.GapBytes(readAhead));

    /// <summary>A trial unit over a file cut short stops at the file's last page and reports the rest, as a chunk does: never a SIGBUS.</summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void SweepTrialUnit_PastATruncatedEnd_StopsAtTheFilesLastPage_AndFailsTheRest()
    {
        using TestFile file = TestFile.Create(64 * Page);
        using MappedFile map = file.Map(MemoryMappedFileAccess.Read);
        using (var stream = new FileStream(file.Path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite))
        {
            stream.SetLength((40 * Page) + 100);
        }

        nint start = map.Region().Address, end = start + (64 * Page);
        var regions = new[] { new MergedRegion(start, end, "cut", 0) };
        using var mechanism = new SweepMechanism(PrefaultMethod.Populate, HintsFirst: false, TouchAfter.None, [], ThroughMapping: MappingTouch.TryCreate());
        var chunks = new ChunkSweep(regions, mechanism);
        using var candidate = new HugePagePopulate(FileStaging.Prepare(regions, ProcMaps.ReadFor(regions), PrefaultMethod.Populate, FolioPolicy.HugePages,
            somethingToRead: true, NullLogger.Instance, "test", deferAdvice: true));

        MechanismTrial.UnitCost cost = chunks.SweepTrialUnit(candidate, 0, start, end);

        Assert.Equal(41 * Page, cost.Bytes);
        var failures = new List<RegionFailure>();
        chunks.CollectFailures(failures);
        Assert.Equal(23 * Page, Assert.Single(failures).Length);
    }

    /// <summary>
    /// A run whose set takes a trial (a budget share raised for this test, so 96 MiB is enough): the result names each
    /// candidate and its cost, and the file ends up resident whole. (Reuse: <see cref="MechanismChoiceTests"/>.)
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithATrial_TriesEachCandidate_AndSweepsTheRestWithTheChoice()
    {
        using TestFile file = TestFile.Create(Bytes);
        (PrefaultResult result, double residentPercent) = RunWithATrial(file, new PrefaultOptions { RamGate = RamGate.Always });

        Assert.Equal(100.0, residentPercent);
        Assert.True(result.Failures.Count == 0, result.Failures.Count > 0 ? result.Failures[0].Message : null);
        Assert.Equal(Bytes, result.Bytes);
        Assert.Contains("; trial of ", result.MechanismDescription, StringComparison.Ordinal);
        foreach (string name in (string[])["read-ahead populate", "windowed populate"])
        {
            Assert.Contains(name + " ", result.MechanismDescription, StringComparison.Ordinal);
        }

        Assert.Contains("ns/B", result.MechanismDescription, StringComparison.Ordinal);
    }

    /// <summary>
    /// A run whose later candidates stop after their first part (a margin below zero, so any rate stops them): the
    /// units they left are swept with the choice, so the run still reports every byte and leaves the file resident.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WhereCandidatesStopEarly_SweepsTheUnitsTheyLeftWithTheChoice()
    {
        using TestFile file = TestFile.Create(Bytes);
        (PrefaultResult result, double residentPercent) = RunWithATrial(file, new PrefaultOptions { RamGate = RamGate.Always }, stopMargin: -1);

        Assert.Equal(100.0, residentPercent);
        Assert.True(result.Failures.Count == 0, result.Failures.Count > 0 ? result.Failures[0].Message : null);
        Assert.Equal(Bytes, result.Bytes);
        Assert.Contains("; trial of up to 4 x ", result.MechanismDescription, StringComparison.Ordinal);
        Assert.Contains("(2 units, stopped past ", result.MechanismDescription, StringComparison.Ordinal);
    }

    [Fact]
    public void WithUnits_PutsTheLeftUnitsBackInAddressOrder_AndJoinsTouchingPiecesOfOneRegion()
    {
        nint unit = (nint)MechanismTrial.UnitBytes;
        MergedRegion[] units = [new(0, unit, "a", 0), new(unit, 2 * unit, "a", 0), new(2 * unit, 3 * unit, "a", 0), new(20 * unit, 21 * unit, "b", 1)];
        MergedRegion[] rest = [new(3 * unit, 10 * unit, "a", 0), new(21 * unit, 30 * unit, "b", 1)];

        (MergedRegion[] joined, int[] parents) = TrialSweep.WithUnits(rest, [0, 1], units, [0, 0, 0, 1], [3, 2]);

        Assert.Equal([new MergedRegion(2 * unit, 10 * unit, "a", 0), new MergedRegion(20 * unit, 30 * unit, "b", 1)], joined);
        Assert.Equal([0, 1], parents);
        Assert.Same(rest, TrialSweep.WithUnits(rest, [0, 1], units, [0, 0, 0, 1], []).Remainder);
    }

    /// <summary>
    /// A cancel that lands inside the trial (from the first progress report, which comes after the warm-up unit): the
    /// run stops between units, says it was cancelled, and sweeps nothing of the rest.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_CancelledDuringTheTrial_StopsBetweenUnits_AndSaysSo()
    {
        using TestFile file = TestFile.Create(Bytes);
        using var cancel = new CancellationTokenSource();
        var progress = new CancelOnFirstReport(cancel);
        (PrefaultResult result, _) = RunWithATrial(file, new PrefaultOptions { RamGate = RamGate.Always, Progress = progress }, token: cancel.Token);

        Assert.True(progress.Reports >= 1);
        Assert.True(result.IsCanceled, result.Reason);
        Assert.InRange(result.Bytes, 1, MechanismTrial.UnitBytes); // the warm-up unit alone
        Assert.Contains("huge-page populate not measured", result.MechanismDescription, StringComparison.Ordinal);
        Assert.Empty(result.Failures);
    }

    /// <summary>Runs over the whole file with a budget share raised so that 96 MiB takes a trial (four units each, the gaps within the file).</summary>
    private static (PrefaultResult Result, double ResidentPercent) RunWithATrial(TestFile file, PrefaultOptions options, double? stopMargin = null,
        CancellationToken token = default)
    {
        using MappedFile view = file.Map(MemoryMappedFileAccess.Read);
        try
        {
            MechanismTrial.BudgetShareOverride.Value = 0.2;
            MechanismTrial.StopMarginOverride.Value = stopMargin;
            PrefaultResult result = MmapPrefault.Run([view.Region()], options, token);
            return (result, Residency.OfFile(file.Path).Percent);
        }
        finally
        {
            MechanismTrial.BudgetShareOverride.Value = null;
            MechanismTrial.StopMarginOverride.Value = null;
        }
    }

    private sealed class CancelOnFirstReport(CancellationTokenSource cancel) : IProgress<PrefaultProgress>
    {
        private int _reports;

        public int Reports => Volatile.Read(ref _reports);

        public void Report(PrefaultProgress value)
        {
            Interlocked.Increment(ref _reports);
            cancel.Cancel();
        }
    }
}
