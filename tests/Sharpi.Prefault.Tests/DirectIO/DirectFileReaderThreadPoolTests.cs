namespace Sharpi.Prefault.Tests.DirectIO;

/// <summary>
/// ReadAsync never holds a thread-pool thread while the disk works, nor waits on pool work: the reader's own threads
/// read the blocks. Checked with one pool thread free, and with none.
/// </summary>
[Collection(ThreadPoolLimits.Name)]
public sealed class DirectFileReaderThreadPoolTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    private static DirectReadOptions ParallelOptions => DirectFileReaderAsyncTests.ParallelOptions;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task ReadAsync_ManyConcurrentCalls_WithTheThreadPoolLimited_AllCompleteWithTheRightBytes()
    {
        using TestFile file = TestFile.Create((8 * TestFile.MiB) + 1234);
        using var reader = DirectFileReader.Open(file.Path, ParallelOptions);
        using var limit = new ThreadPoolLimitScope(freeThreads: 1);
        const int Calls = 16;
        var destinations = new byte[Calls][];
        var reads = new Task<int>[Calls];

        for (int i = 0; i < Calls; i++)
        {
            destinations[i] = new byte[(int)TestFile.MiB + i];
            reads[i] = reader.ReadAsync(i * 4099L, destinations[i]).AsTask();
        }

        Task all = Task.WhenAll(reads);
        Assert.Same(all, await Task.WhenAny(all, Task.Delay(Patience)));

        for (int i = 0; i < Calls; i++)
        {
            Assert.Equal(destinations[i].Length, reads[i].Result);
            Assert.Equal(BufferedReference.Read(file.Path, i * 4099L, destinations[i].Length), destinations[i]);
        }

        Assert.Equal(Calls, reader.Statistics.Reads);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void ReadAsync_WithEveryThreadPoolThreadBusy_StillReads()
    {
        using TestFile file = TestFile.Create((4 * TestFile.MiB) + 99);
        using var reader = DirectFileReader.Open(file.Path, ParallelOptions);
        byte[] expected = BufferedReference.Read(file.Path, 7, (3 * (int)TestFile.MiB) + 5);
        var destination = new byte[expected.Length];
        using var limit = new ThreadPoolLimitScope(freeThreads: 1);
        Task<int>? read;
        using (PoolBlockers.OccupyFreeThreads())
        {
            // No pool thread is free now (a work item waits in the queue): a read that needed one would not start
            // until the blockers are released.
            read = reader.ReadAsync(7, destination).AsTask();
            Assert.True(SpinWait.SpinUntil(() => destination.AsSpan().SequenceEqual(expected), Patience),
                "ReadAsync read nothing while every thread-pool thread was busy");
        }

        Assert.True(read.Wait(Patience));
        Assert.Equal(expected.Length, read.Result);
    }
}
