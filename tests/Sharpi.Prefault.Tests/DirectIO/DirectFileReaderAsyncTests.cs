namespace Sharpi.Prefault.Tests.DirectIO;

/// <summary>ReadAsync and DisposeAsync: the same bytes, fallback, errors and ordering as the synchronous calls.</summary>
public sealed class DirectFileReaderAsyncTests
{
    private const int EINVAL = 22;
    private const int EIO = 5;

    // Several blocks per read and several in flight, so that every read has parallel workers.
    internal static readonly DirectReadOptions ParallelOptions = new DirectReadOptions
    {
        BlockSize = 256 * 1024,
        MaxReadsInFlight = 4,
        MaxInFlightBytes = TestFile.MiB,
    };

    // ParallelOptions whose first Direct I/O read fails with errno.
    private static DirectReadOptions WithParallelReads(int errno) => new()
    {
        BlockSize = ParallelOptions.BlockSize,
        MaxReadsInFlight = ParallelOptions.MaxReadsInFlight,
        MaxInFlightBytes = ParallelOptions.MaxInFlightBytes,
        SimulatedFirstReadErrno = errno,
    };

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task ReadAsync_WhileASynchronousReadRuns_WaitsForIt_AndBothReturnTheSameBytes()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        using var reader = DirectFileReader.Open(file.Path, ParallelOptions);
        var first = new byte[(int)file.Length];
        var second = new byte[(int)file.Length - 3];

        Task<int> sync = Task.Factory.StartNew(() => reader.Read(0, first), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        int asyncRead = await reader.ReadAsync(3, second);

        Assert.Equal(first.Length, await sync);
        Assert.Equal(second.Length, asyncRead);
        Assert.Equal(first.AsSpan(3).ToArray(), second);
        Assert.Equal(BufferedReference.Read(file.Path, 0, first.Length), first);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task ReadAsync_WhenTheFirstDirectReadIsRefused_FallsBackToBuffered_AndReturnsSameBytes()
    {
        using TestFile file = TestFile.Create((3 * TestFile.MiB) + 5);
        using var reader = DirectFileReader.Open(file.Path, WithParallelReads(EINVAL));
        var destination = new byte[(int)file.Length - 1];

        int read = await reader.ReadAsync(1, destination);

        Assert.Equal(destination.Length, read);
        Assert.Equal(BufferedReference.Read(file.Path, 1, destination.Length), destination);
        Assert.Equal(DirectReadMode.Buffered, reader.Mode);
        Assert.Equal(0, reader.Statistics.DirectBytesRead);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task ReadAsync_WhenADirectReadFailsWithAnIOError_ThrowsIOExceptionCarryingTheErrno()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using var reader = DirectFileReader.Open(file.Path, WithParallelReads(EIO));

        IOException e = await Assert.ThrowsAsync<IOException>(async () => await reader.ReadAsync(0, new byte[1000]));

        Assert.Equal(EIO, e.HResult);
        Assert.Contains(file.Path, e.Message, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task DisposeAsync_DuringARead_WaitsForIt_ThenTheReaderIsDisposed()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        var reader = DirectFileReader.Open(file.Path, ParallelOptions);
        var destination = new byte[(int)file.Length];

        Task<int> read = reader.ReadAsync(0, destination).AsTask();
        await reader.DisposeAsync();

        Assert.Equal(destination.Length, await read);
        Assert.Equal(BufferedReference.Read(file.Path, 0, destination.Length), destination);
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await reader.ReadAsync(0, new byte[10]));
        await reader.DisposeAsync();
    }

    [Fact]
    public async Task ReadAsync_WithACancelledToken_Throws()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using var reader = DirectFileReader.Open(file.Path);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(
            async () => await reader.ReadAsync(0, new byte[1000], new CancellationToken(canceled: true)));
    }

    [Fact]
    public async Task ReadAsync_AfterDispose_Throws()
    {
        using TestFile file = TestFile.Create(8192);
        var reader = DirectFileReader.Open(file.Path);
        reader.Dispose();

        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await reader.ReadAsync(0, new byte[10]));
    }

    [Fact]
    public void ReadAsync_WithNegativeOffset_ThrowsAtTheCall()
    {
        using TestFile file = TestFile.Create(8192);
        using var reader = DirectFileReader.Open(file.Path);

        Task<int>? read = null;

        Assert.Throws<ArgumentOutOfRangeException>(() => { read = reader.ReadAsync(-1, new byte[10]).AsTask(); });
        Assert.Null(read);
    }
}
