using System.Runtime.Versioning;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// What the sweep does to one chunk, on real memory: populate or touch brings exactly the chunk in, a file cut short
/// stops the chunk at its last page with the rest recorded as the region's failure, and an unmapped chunk fails
/// softly. The sampled touch after a populate is <see cref="TouchAfterPopulateTests"/>'s.
/// </summary>
[SupportedOSPlatform("linux")] // every test needs Requirements.Linux
public sealed class ChunkSweepTests
{
    private static readonly nint Page = Environment.SystemPageSize;

    private static readonly SweepMechanism Populate = new(PrefaultMethod.Populate, HintsFirst: false, TouchAfter.None, []);
    private static readonly SweepMechanism PopulateAndSample = Populate with { TouchAfter = TouchAfter.Sampled };
    private static readonly SweepMechanism Touch = new(PrefaultMethod.Touch, HintsFirst: false, TouchAfter.None, []);

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void SweepChunk_Populate_BringsTheChunkIn_AndReturnsItsBytes()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        using MappedFile map = file.Map();
        PrefaultRegion chunk = map.Region((2 * TestFile.MiB) + 100, 4 * TestFile.MiB);
        var sweep = new ChunkSweep([new MergedRegion(chunk.Address, chunk.End, "r", 0)], Populate);

        long swept = sweep.SweepChunk(0, chunk.Address, chunk.End);

        Assert.Equal(chunk.Length, swept);
        Assert.Equal(100.0, Residency.Measure(chunk).Percent);
        Assert.Empty(Failures(sweep));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void SweepChunk_Touch_ReadsEveryPageOfTheChunk_AndNoOther()
    {
        const int Pages = 64;
        nint memory = NativeTestMethods.MapAnonymous(Pages * Page);
        try
        {
            nint start = memory + (10 * Page) + 100, end = memory + (50 * Page);
            var sweep = new ChunkSweep([new MergedRegion(start, end, "anon", 0)], Touch);

            long swept = sweep.SweepChunk(0, start, end);

            Assert.Equal(end - start, swept);
            Assert.Equal(40, PageMap.CountPresent(memory, Pages * Page));
            Assert.False(PageMap.IsPresent(memory + (9 * Page)));
            Assert.False(PageMap.IsPresent(memory + (50 * Page)));
        }
        finally
        {
            NativeTestMethods.Unmap(memory, Pages * Page);
        }
    }

    /// <summary>
    /// The file is cut to 40 pages and 100 bytes under a 64-page mapping: page 40 still holds file bytes, page 41 is
    /// the first a read would SIGBUS on. Populate finds it by halving; a touch through the kernel stops on it.
    /// </summary>
    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData(PrefaultMethod.Populate, false)]
    [InlineData(PrefaultMethod.Populate, true)]
    [InlineData(PrefaultMethod.Touch, false)]
    public void SweepChunk_PastATruncatedEnd_StopsAtTheFilesLastPage_AndFailsTheRest(PrefaultMethod method, bool sampled)
    {
        using TestFile file = TestFile.Create(64 * Page);
        using MappedFile map = file.Map();
        using (var stream = new FileStream(file.Path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite))
        {
            stream.SetLength((40 * Page) + 100);
        }

        nint start = map.Region().Address + 10, end = map.Region().Address + (64 * Page);
        SweepMechanism mechanism = method == PrefaultMethod.Touch ? Touch : sampled ? PopulateAndSample : Populate;
        var sweep = new ChunkSweep([new MergedRegion(start, end, "cut", 0)], mechanism);

        long swept = sweep.SweepChunk(0, start, end);

        Assert.Equal((41 * Page) - 10, swept);
        RegionFailure failure = Assert.Single(Failures(sweep));
        Assert.Equal("cut", failure.Name);
        string call = method == PrefaultMethod.Populate ? "madvise(MADV_POPULATE_READ)" : "process_vm_readv";
        Assert.Equal(PlatformError.FromErrno(call, global::Interop.LinuxConstants.EFAULT), failure.Error);
        Assert.Equal(23 * Page, failure.Length);
    }

    /// <summary>
    /// Where process_vm_readv is refused, the touch reads a file mapping's bytes through the file (pread): the page
    /// cache fills up to the file's last page and the rest is reported, and no page is loaded or mapped (a load past
    /// the end would be a fatal SIGBUS, and the file can shrink between any check and a load).
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void SweepChunk_TouchThroughTheFile_PastATruncatedEnd_CachesUpToTheLastPage_AndLoadsNothing()
    {
        using TestFile file = TestFile.Create(64 * Page);
        using MappedFile map = file.Map();
        using (var stream = new FileStream(file.Path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite))
        {
            stream.SetLength((40 * Page) + 100);
        }

        file.Evict();
        nint start = map.Region().Address + 10, end = map.Region().Address + (64 * Page);
        var sweep = new ChunkSweep([new MergedRegion(start, end, "cut", 0)], Touch with { FileRead = new FileReadTouch(ProcMaps.ReadSelf()) });

        long swept = sweep.SweepChunk(0, start, end);

        Assert.Equal((41 * Page) - 10, swept);
        RegionFailure failure = Assert.Single(Failures(sweep));
        Assert.Equal(23 * Page, failure.Length);
        Assert.Contains("past the end of the mapped file", failure.Message, StringComparison.Ordinal);
        Assert.Equal(100.0, Residency.Measure(map.Region(0, 41 * Page)).Percent); // in the page cache (mincore)
        Assert.Equal(0, PageMap.CountPresent(map.Region().Address, 64 * Page)); // and not one page loaded into this process
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void SweepChunk_TouchThroughTheFile_OfPrivateAnonymousMemory_LoadsItsPages()
    {
        const int Pages = 16;
        nint memory = NativeTestMethods.MapAnonymous(Pages * Page);
        try
        {
            var sweep = new ChunkSweep([new MergedRegion(memory, memory + (Pages * Page), "anon", 0)], Touch with { FileRead = new FileReadTouch(ProcMaps.ReadSelf()) });

            long swept = sweep.SweepChunk(0, memory, memory + (Pages * Page));

            Assert.Equal(Pages * Page, swept);
            Assert.Equal(Pages, PageMap.CountPresent(memory, Pages * Page));
        }
        finally
        {
            NativeTestMethods.Unmap(memory, Pages * Page);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void SweepChunk_OfAnUnmappedRange_SweepsNothing_AndRecordsItAsNotMapped()
    {
        nint gone = Unmapped.Address(TestFile.MiB);
        var sweep = new ChunkSweep([new MergedRegion(gone, gone + (nint)TestFile.MiB, "gone", 0)], Populate);

        long swept = sweep.SweepChunk(0, gone, gone + (nint)TestFile.MiB);

        Assert.Equal(0, swept);
        RegionFailure failure = Assert.Single(Failures(sweep));
        Assert.Equal(PlatformErrorKind.Errno, failure.Error.Kind);
        Assert.Equal(global::Interop.LinuxConstants.ENOMEM, failure.Error.Code);
        Assert.Equal(TestFile.MiB, failure.Length);
        Assert.Contains("not mapped", failure.Message, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Failures_AreOnePerRegion_SummingTheBytesOfEveryChunkThatFailed()
    {
        nint gone = Unmapped.Address(4 * Page);
        var sweep = new ChunkSweep([new MergedRegion(gone, gone + (4 * Page), "gone", 0)], Populate);

        sweep.SweepChunk(0, gone, gone + (2 * Page));
        sweep.SweepChunk(0, gone + (2 * Page), gone + (4 * Page));

        Assert.Equal(4 * Page, Assert.Single(Failures(sweep)).Length);
    }

    private static List<RegionFailure> Failures(ChunkSweep sweep)
    {
        var failures = new List<RegionFailure>();
        sweep.CollectFailures(failures);
        return failures;
    }
}
