using System.Diagnostics;
using System.IO.MemoryMappedFiles;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// A file that shrinks while the sweep runs must never kill the process: a load of a page past a file's end raises
/// SIGBUS, which .NET cannot catch. Each test truncates the mapped file from another thread at a random moment of a
/// run, hundreds of times, and restores it; a single fatal fault ends the whole test process.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class TruncationRaceTests
{
    private const long FileBytes = 8 * TestFile.MiB;
    private const int Iterations = 300;
    private static readonly TimeSpan TimeBound = TimeSpan.FromSeconds(20);

    [LinuxTheory]
    [InlineData(PrefaultStrategy.Auto, MemoryMappedFileAccess.Read)]
    [InlineData(PrefaultStrategy.Touch, MemoryMappedFileAccess.Read)]
    [InlineData(PrefaultStrategy.Auto, MemoryMappedFileAccess.CopyOnWrite)] // an engine's writable mapping: read through a staging view
    public void Run_WhileTheFileIsTruncated_NeverFaultsFatally(PrefaultStrategy strategy, MemoryMappedFileAccess access)
    {
        int runs = RaceTruncation((region, options) => MmapPrefault.Run([region], options), strategy, out int cut, access);

        Assert.True(runs >= 100, $"only {runs} runs in the time bound");
        Assert.True(cut > 0, "no run saw the truncation: the race was never exercised");
    }

    [LinuxFact]
    public void Start_WhileTheFileIsTruncated_NeverFaultsFatally()
    {
        int runs = RaceTruncation((region, options) =>
        {
            using PrefaultHandle handle = MmapPrefault.Start([region], options);
            return handle.Wait();
        }, PrefaultStrategy.Auto, out int cut);

        Assert.True(runs >= 100, $"only {runs} runs in the time bound");
        Assert.True(cut > 0, "no run saw the truncation: the race was never exercised");
    }

    [LinuxFact]
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
            PrefaultOptions.Default with { Strategy = PrefaultStrategy.Touch, RamGate = RamGate.Always });

        Assert.True(result.HasRun);
        Assert.Equal(FileBytes / 4, result.Bytes);
        Assert.Equal(FileBytes - (FileBytes / 4), result.Failures.Sum(f => f.Length));
    }

    /// <summary>
    /// Runs <paramref name="run"/> over a freshly evicted mapping while another thread truncates the file to a random
    /// length after a random delay, then restores it; returns how many runs completed and how many reported pages
    /// past the end (proof that the truncation landed inside a sweep).
    /// </summary>
    private static int RaceTruncation(Func<PrefaultRegion, PrefaultOptions, PrefaultResult> run, PrefaultStrategy strategy, out int cut,
        MemoryMappedFileAccess access = MemoryMappedFileAccess.Read)
    {
        using TestFile file = TestFile.Create(FileBytes);
        using var stream = new FileStream(file.Path, FileMode.Open, FileAccess.ReadWrite, FileShare.ReadWrite);
        using MemoryMappedFile map = MemoryMappedFile.CreateFromFile(stream, null, FileBytes, access, HandleInheritability.None, leaveOpen: true);
        using MemoryMappedViewAccessor view = map.CreateViewAccessor(0, FileBytes, access);
        PrefaultRegion region = PrefaultRegion.FromView(view, "racing");
        PrefaultOptions options = PrefaultOptions.Default with
        {
            Strategy = strategy,
            RamGate = RamGate.Always,
            ChunkSize = 256 * 1024, // many chunks: many moments at which the file can shrink between two steps
            MaxDegreeOfParallelism = 2,
        };

        var random = new Random(20261122);
        var clock = Stopwatch.StartNew();
        int runs = 0;
        cut = 0;
        while (runs < Iterations && clock.Elapsed < TimeBound)
        {
            stream.SetLength(FileBytes);
            PageCache.Evict(file.Path);
            long newLength = random.NextInt64(0, FileBytes);
            int delayTicks = random.Next(0, 2000);
            using var truncated = new ManualResetEventSlim();
            var truncator = new Thread(() =>
            {
                var spin = Stopwatch.StartNew();
                while (spin.ElapsedTicks < delayTicks)
                {
                    Thread.SpinWait(10);
                }

                stream.SetLength(newLength);
                truncated.Set();
            });
            truncator.Start();

            PrefaultResult result = run(region, options);
            truncator.Join();
            runs++;
            if (result.Failures.Count > 0)
            {
                cut++;
            }
        }

        return runs;
    }
}
