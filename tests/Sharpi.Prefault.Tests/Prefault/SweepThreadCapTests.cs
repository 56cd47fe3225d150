namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// <see cref="PrefaultOptions.MaxDegreeOfParallelism"/> = int.MaxValue with one-page chunks started a thread per chunk
/// (4,096 for 16 MiB; 256 MiB did not finish in 300 s, and Dispose one second after Start took 9.2 s). The sweep now
/// starts at most <see cref="StrideSweep.MaxThreads"/>, and none once cancelled. Counted, not timed: the threads the
/// sweep started, as the result reports them (the helpers are short-lived: /proc/self/task, sampled at the first
/// progress report, listed 21 tasks on the old code too).
/// </summary>
public sealed class SweepThreadCapTests(ITestOutputHelper output)
{
    private static readonly PrefaultOptions Unbounded = new PrefaultOptions
    {
        MaxDegreeOfParallelism = int.MaxValue,
        ChunkSize = 1, // one page a chunk
        RamGate = RamGate.Always,
    };

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithUnboundedParallelismAndOnePageChunks_StartsNoMoreThanTheCap()
    {
        using TestFile file = TestFile.Create(16 * TestFile.MiB);
        using MappedFile map = file.Map();

        PrefaultResult result = MmapPrefault.Run([map.Region()], Unbounded);

        output.WriteLine($"cap {StrideSweep.MaxThreads}, threads started {result.Threads}");
        Assert.Equal(16 * TestFile.MiB, result.Bytes);
        Assert.InRange(result.Threads, 1, StrideSweep.MaxThreads); // was 4,096
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_CancelledBeforeItStarts_StartsNoHelperThread()
    {
        using TestFile file = TestFile.Create(4 * TestFile.MiB);
        using MappedFile map = file.Map();
        using var cancel = new CancellationTokenSource();
        cancel.Cancel();

        PrefaultResult result = MmapPrefault.Run([map.Region()], Unbounded, cancel.Token);

        Assert.True(result.IsCanceled);
        Assert.Equal(0, result.Threads); // no sweep at all (was one thread per chunk, 1,024, each started to do nothing; then the calling thread alone)
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Dispose_RightAfterStart_WithUnboundedParallelism_StopsWithinTheCap()
    {
        using TestFile file = TestFile.Create(64 * TestFile.MiB);
        using MappedFile map = file.Map();

        PrefaultHandle handle = MmapPrefault.Start([map.Region()], Unbounded);
        handle.Dispose();

        PrefaultResult result = handle.Completion.Result; // complete: Dispose waited for every thread
        Assert.InRange(result.Threads, 0, StrideSweep.MaxThreads);
    }

    private static int TaskCount() => Directory.GetDirectories("/proc/self/task").Length;
}
