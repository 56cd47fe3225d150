using System.IO.MemoryMappedFiles;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// A file that shrinks while the sweep runs must never kill the process: a load of a page past a file's end raises
/// SIGBUS, which .NET cannot catch. Each test truncates the mapped file from another thread at a random moment of a
/// run, hundreds of times, and restores it; a single fatal fault ends the whole test process. Each test runs a fixed
/// number of times (no time bound) and proves the race happened: some truncations began and ended while a run was
/// going on, and that run reported the pages past the new end.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class TruncationRaceTests(ITestOutputHelper output)
{
    private const long FileBytes = 8 * TestFile.MiB;
    private const int Iterations = 300;

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData(PrefaultStrategy.Auto, MemoryMappedFileAccess.Read)]
    [InlineData(PrefaultStrategy.Touch, MemoryMappedFileAccess.Read)]
    [InlineData(PrefaultStrategy.Auto, MemoryMappedFileAccess.CopyOnWrite)] // an engine's writable mapping: read through a staging view
    public void Run_WhileTheFileIsTruncated_NeverFaultsFatally(PrefaultStrategy strategy, MemoryMappedFileAccess access)
    {
        Race race = RaceTruncation((region, options) => MmapPrefault.Run([region], options), strategy, access);

        race.AssertExercised(output);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Start_WhileTheFileIsTruncated_NeverFaultsFatally()
    {
        Race race = RaceTruncation((region, options) =>
        {
            using PrefaultHandle handle = MmapPrefault.Start([region], options);
            return handle.Completion.GetAwaiter().GetResult();
        }, PrefaultStrategy.Auto);

        race.AssertExercised(output);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_OnADeletedFileThatShrank_ReportsThePagesPastTheEnd()
    {
        // Map, shrink, delete, then run the touch sweep: /proc/self/maps says "(deleted)", so no path gives the length.
        TestFile file = TestFile.Create(FileBytes, evict: false);
        using var stream = new FileStream(file.Path, FileMode.Open, FileAccess.ReadWrite, FileShare.ReadWrite | FileShare.Delete);
        using MemoryMappedFile map = MemoryMappedFile.CreateFromFile(stream, null, FileBytes, MemoryMappedFileAccess.Read, HandleInheritability.None, leaveOpen: true);
        using MemoryMappedViewAccessor view = map.CreateViewAccessor(0, FileBytes, MemoryMappedFileAccess.Read);
        stream.SetLength(FileBytes / 4);
        file.Dispose();

        PrefaultResult result = MmapPrefault.Run([PrefaultRegion.FromView(view, "deleted")],
            new PrefaultOptions { Strategy = PrefaultStrategy.Touch, RamGate = RamGate.Always });

        Assert.True(result.HasRun);
        Assert.Equal(FileBytes / 4, result.Bytes);
        Assert.Equal(FileBytes - (FileBytes / 4), result.Failures.Sum(f => f.Length));
    }

    /// <summary>
    /// Runs <paramref name="run"/> <see cref="Iterations"/> times over a freshly evicted mapping while another thread
    /// truncates the file to a random length after a random spin, then restores it (writes its bytes back: lengthened
    /// alone, the file would be a hole there, which the plan leaves out); counts the truncations that
    /// began and ended while a run was going on, and of those the runs that reported pages past the end (a truncation
    /// before the run starts is reported too, but races nothing).
    /// </summary>
    private static Race RaceTruncation(Func<PrefaultRegion, PrefaultOptions, PrefaultResult> run, PrefaultStrategy strategy,
        MemoryMappedFileAccess access = MemoryMappedFileAccess.Read)
    {
        using var file = new ShrinkingFile(FileBytes, access, seed: 20261122);
        using var swept = new ManualResetEventSlim();
        PrefaultOptions options = new PrefaultOptions
        {
            Strategy = strategy,
            RamGate = RamGate.Always,
            ChunkSize = 256 * 1024, // many chunks: many moments at which the file can shrink between two steps
            MaxDegreeOfParallelism = 2,
            Progress = new OnReport(swept),
        };

        // The truncator waits for the run's first progress report (its first chunk swept), then spins a random while:
        // started before the run, on a fast machine it truncated before the run began in all 300 iterations.
        int overlapped = 0;
        int cut = 0;
        int cutWhileRunning = 0;
        for (int i = 0; i < Iterations; i++)
        {
            ShrinkingFile.Cut truncator = file.StartCut(swept);

            truncator.SweepStarts();
            PrefaultResult result = run(file.Region, options);
            bool duringRun = truncator.Join(); // a run that reported nothing releases the truncator after it
            overlapped += duringRun ? 1 : 0;
            cut += result.Failures.Count > 0 ? 1 : 0;
            cutWhileRunning += duringRun && result.Failures.Count > 0 ? 1 : 0;
        }

        return new Race(Iterations, overlapped, cut, cutWhileRunning);
    }

    /// <summary>Sets the event on every report, on the reporting thread (Progress&lt;T&gt; would post it elsewhere, later).</summary>
    private sealed class OnReport(ManualResetEventSlim swept) : IProgress<PrefaultProgress>
    {
        public void Report(PrefaultProgress value) => swept.Set();
    }

    private readonly record struct Race(int Runs, int Overlapped, int Cut, int CutWhileRunning)
    {
        public void AssertExercised(ITestOutputHelper output)
        {
            string counts = $"{Runs} runs, {Overlapped} truncated while running, {Cut} saw pages past the end, {CutWhileRunning} of them while running";
            output.WriteLine(counts);
            Assert.True(CutWhileRunning > 0, $"no truncation during a run was seen by it: the race was never exercised ({counts})");
        }
    }
}
