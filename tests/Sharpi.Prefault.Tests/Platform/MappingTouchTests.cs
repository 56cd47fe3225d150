using System.Runtime.Versioning;

namespace Sharpi.Prefault.Tests.Platform;

/// <summary>
/// The touch through the engine's own mapping (<see cref="MappingTouch"/>): it faults in the pages it is given through
/// this process's mapping, and a page past a truncated file's end ends it with EFAULT, never SIGBUS, even when the
/// file shrinks while a sweep of it runs. Without memfd_create it falls back (<c>SeccompMappingTouchTests</c>).
/// </summary>
[SupportedOSPlatform("linux")] // every test needs Requirements.Linux
public sealed class MappingTouchTests(ITestOutputHelper output)
{
    private const int Page = 4096;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void IsAvailable_WithoutAFilter_AndSaysNoRefusal()
    {
        Assert.True(MappingTouch.IsAvailable, MappingTouch.Refusal.ToString());
        Assert.False(MappingTouch.Refusal.IsError);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Touch_OfAColdFileMapping_MapsEveryTouchedPage()
    {
        using TestFile file = TestFile.Create(64 * Page);
        using MappedFile map = file.Map();
        using MappingTouch touch = MappingTouch.TryCreate()!;
        nint start = map.Region().Address;
        Assert.Equal(0, PageMap.CountPresent(start, 64 * Page)); // the case is real: nothing mapped yet

        byte sink = 0;
        nint stopped = touch.Touch(start, start + (64 * Page), TouchAfterPopulate.SamplePages * Page, ref sink, out PlatformError error);

        Assert.Equal(start + (64 * Page), stopped);
        Assert.False(error.IsError);
        for (int page = 0; page < 64; page += TouchAfterPopulate.SamplePages)
        {
            Assert.True(PageMap.IsPresent(start + (page * Page)), $"page {page} was touched but is not mapped");
        }
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData(1, 40)] // every page: the first past the new end (page 40)
    [InlineData(TouchAfterPopulate.SamplePages, 48)] // pages 0, 16, 32 and 48: 48 is the first past it
    public void Touch_OfATruncatedMapping_StopsAtTheFirstTouchedPagePastTheEnd_WithEfault(int stridePages, int stopPage)
    {
        using TestFile file = TestFile.Create(64 * Page);
        using MappedFile map = file.Map();
        using (var stream = new FileStream(file.Path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite))
        {
            stream.SetLength(40 * Page);
        }

        using MappingTouch touch = MappingTouch.TryCreate()!;
        nint start = map.Region().Address;
        byte sink = 0;
        nint stopped = touch.Touch(start + 10, start + (64 * Page), stridePages * Page, ref sink, out PlatformError error);

        Assert.Equal(start + (stopPage * Page), stopped);
        Assert.Equal(PlatformError.FromErrno(MappingTouch.Call, global::Interop.LinuxConstants.EFAULT), error);
    }

    /// <summary>
    /// A touch sweep through the mapping, chunk after chunk on two threads, while another thread truncates the file at
    /// a random moment after the first chunk: a single load past the end would end the test process (SIGBUS). Proves
    /// the race: some truncations fell inside a sweep, and the mapping touch itself (pwritev) reported the pages past
    /// the new end.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Sweep_ThroughTheMapping_WhileTheFileIsTruncated_NeverFaultsFatally_AndReportsThePagesPastTheEnd()
    {
        const long FileBytes = 8 * TestFile.MiB;
        const int Iterations = 100;
        const int Chunk = 256 * 1024;
        using var file = new ShrinkingFile(FileBytes, System.IO.MemoryMappedFiles.MemoryMappedFileAccess.Read, seed: 20261207);
        PrefaultRegion region = file.Region;
        using var firstChunk = new ManualResetEventSlim();

        int cutWhileRunning = 0, reportedByTheTouch = 0;
        for (int i = 0; i < Iterations; i++)
        {
            ShrinkingFile.Cut truncator = file.StartCut(firstChunk);
            truncator.SweepStarts();

            using var mechanism = new SweepMechanism(PrefaultMethod.Touch, HintsFirst: false, TouchAfter.None, [],
                ThroughMapping: MappingTouch.TryCreate());
            var sweep = new ChunkSweep([new MergedRegion(region.Address, region.End, "racing", 0)], mechanism);
            int next = 0;
            void Worker()
            {
                for (int c = Interlocked.Increment(ref next) - 1; (long)c * Chunk < FileBytes; c = Interlocked.Increment(ref next) - 1)
                {
                    nint at = region.Address + (c * Chunk);
                    _ = sweep.SweepChunk(0, at, at + Chunk);
                    firstChunk.Set();
                }
            }

            var other = new Thread(Worker);
            other.Start();
            Worker();
            other.Join();
            bool duringRun = truncator.Join();

            var failures = new List<RegionFailure>();
            sweep.CollectFailures(failures);
            cutWhileRunning += duringRun && failures.Count > 0 ? 1 : 0;
            reportedByTheTouch += failures.Any(f => f.Error.Call == MappingTouch.Call) ? 1 : 0;
        }

        output.WriteLine($"{Iterations} sweeps, {cutWhileRunning} cut while running, {reportedByTheTouch} reported by pwritev");
        Assert.True(cutWhileRunning > 0, "no truncation fell inside a sweep: the race was never exercised");
        Assert.True(reportedByTheTouch > 0, "the mapping touch never met a page past the end");
    }
}
