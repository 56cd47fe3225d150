using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Tests.DirectIO;

/// <summary>Direct reads on the real disk (ext4 here): every byte checked against a buffered read of the same range.</summary>
public sealed class DirectFileReaderTests
{
    // Not a multiple of 4096, so the last block is partial.
    private const long OddLength = (5 * TestFile.MiB) + 1234;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Open_OnDisk_ReadsDirect_WithAnAlignmentFromTheFile()
    {
        using TestFile file = TestFile.Create(OddLength);
        using var reader = DirectFileReader.Open(file.Path);

        DirectReadStatistics stats = reader.Statistics;
        Assert.Equal(DirectReadMode.Direct, reader.Mode);
        Assert.Null(reader.FallbackReason);
        Assert.InRange(stats.Alignment, 512, 4096);
        Assert.Equal(0, stats.BufferBytes);
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData(0L, 4096)]
    [InlineData(1L, 100)]
    [InlineData(511L, 513)]
    [InlineData(4095L, 2)]
    [InlineData(12_345L, 70_000)]
    [InlineData((3 * TestFile.MiB) + 7, (2 * TestFile.MiB) + 9)]
    public void Read_RangeOffAlignment_ReturnsTheSameBytesAsABufferedRead(long offset, int length)
    {
        using TestFile file = TestFile.Create(OddLength);
        using var reader = DirectFileReader.Open(file.Path);

        BufferedReference.AssertReadMatches(reader, offset, length);

        Assert.Equal(DirectReadMode.Direct, reader.Mode);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Read_TheLastPartialBlock_ReturnsTheFilesTail()
    {
        using TestFile file = TestFile.Create(OddLength);
        using var reader = DirectFileReader.Open(file.Path);

        BufferedReference.AssertReadMatches(reader, OddLength - 3000, 3000);

        Assert.Equal(DirectReadMode.Direct, reader.Mode);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Read_StraddlingTheEnd_ReturnsTheAvailableBytes_AndLeavesTheRestUntouched()
    {
        using TestFile file = TestFile.Create(OddLength);
        using var reader = DirectFileReader.Open(file.Path);
        const int Available = 5000;
        var destination = new byte[Available + 10_000];
        destination.AsSpan().Fill(0xCC);

        int read = reader.Read(OddLength - Available, destination);

        Assert.Equal(Available, read);
        Assert.Equal(BufferedReference.Read(file.Path, OddLength - Available, Available), destination[..Available]);
        Assert.All(destination[Available..], b => Assert.Equal(0xCC, b));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Read_AtOrPastTheEnd_ReturnsZero()
    {
        using TestFile file = TestFile.Create(OddLength);
        using var reader = DirectFileReader.Open(file.Path);
        var destination = new byte[4096];

        Assert.Equal(0, reader.Read(OddLength, destination));
        Assert.Equal(0, reader.Read(OddLength + 1_000_000, destination));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Read_ZeroLength_ReturnsZero_AndAllocatesNoBuffer()
    {
        using TestFile file = TestFile.Create(OddLength);
        using var reader = DirectFileReader.Open(file.Path);

        Assert.Equal(0, reader.Read(12_345, Span<byte>.Empty));
        Assert.Equal(0, reader.Read(12_345, 0, 0));
        Assert.Equal(0, reader.Statistics.BufferBytes);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Read_ManyBlocksWithSeveralInFlight_ReturnsTheSameBytes_WithinTheCap()
    {
        using TestFile file = TestFile.Create((24 * TestFile.MiB) + 777);
        DirectReadOptions options = new DirectReadOptions
        {
            BlockSize = (int)TestFile.MiB,
            MaxReadsInFlight = 4,
            MaxInFlightBytes = 4 * TestFile.MiB,
        };
        using var reader = DirectFileReader.Open(file.Path, options);
        const long Offset = 333;
        var destination = new byte[(int)(file.Length - Offset)];

        int read = reader.Read(Offset, destination);

        DirectReadStatistics stats = reader.Statistics;
        Assert.Equal(destination.Length, read);
        Assert.Equal(BufferedReference.Read(file.Path, Offset, destination.Length), destination);
        Assert.Equal(4, stats.ReadsInFlight);
        Assert.InRange(stats.BufferBytes, TestFile.MiB, options.MaxInFlightBytes);
        Assert.InRange(stats.PeakInFlightBytes, TestFile.MiB, options.MaxInFlightBytes);
        Assert.Equal(read, stats.DirectBytesRead);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Read_WithACapBelowTheBlockSize_ShrinksTheBlocksToFit()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        DirectReadOptions options = new DirectReadOptions { MaxInFlightBytes = (3 * TestFile.MiB) + 100 };
        using var reader = DirectFileReader.Open(file.Path, options);
        var destination = new byte[(int)file.Length];

        reader.Read(0, destination);

        DirectReadStatistics stats = reader.Statistics;
        Assert.True((long)stats.BlockSize * stats.ReadsInFlight <= options.MaxInFlightBytes, $"{stats.ReadsInFlight} x {stats.BlockSize}");
        Assert.InRange(stats.BufferBytes, 1, options.MaxInFlightBytes);
        Assert.InRange(stats.PeakInFlightBytes, 1, options.MaxInFlightBytes);
        Assert.Equal(BufferedReference.Read(file.Path, 0, destination.Length), destination);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public unsafe void Read_IntoANativePointer_ReturnsTheSameBytes()
    {
        using TestFile file = TestFile.Create(OddLength);
        using var reader = DirectFileReader.Open(file.Path);
        const long Offset = 4097;
        long length = file.Length - Offset;
        void* memory = NativeMemory.Alloc((nuint)length);
        try
        {
            long read = reader.Read(Offset, (nint)memory, length);

            Assert.Equal(length, read);
            Assert.True(new ReadOnlySpan<byte>(memory, (int)length).SequenceEqual(BufferedReference.Read(file.Path, Offset, (int)length)));
        }
        finally
        {
            NativeMemory.Free(memory);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public unsafe void Read_IntoAnAlignedDestination_ReadsStraightIntoIt_AndReturnsTheSameBytes()
    {
        using TestFile file = TestFile.Create((8 * TestFile.MiB) + 4321);
        DirectReadOptions options = new DirectReadOptions { BlockSize = (int)TestFile.MiB };
        using var reader = DirectFileReader.Open(file.Path, options);
        void* memory = NativeMemory.AlignedAlloc((nuint)file.Length, 4096);
        try
        {
            long read = reader.Read(0, (nint)memory, file.Length);

            // Only the partial last block goes through a staging buffer; the whole blocks land in place.
            Assert.Equal(file.Length, read);
            Assert.True(new ReadOnlySpan<byte>(memory, (int)file.Length).SequenceEqual(BufferedReference.Read(file.Path, 0, (int)file.Length)));
            Assert.Equal(TestFile.MiB, reader.Statistics.BufferBytes);
        }
        finally
        {
            NativeMemory.AlignedFree(memory);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task ReadAsync_ReturnsTheSameBytes()
    {
        using TestFile file = TestFile.Create(OddLength);
        using var reader = DirectFileReader.Open(file.Path);
        var destination = new byte[100_000];

        int read = await reader.ReadAsync(9_999, destination);

        Assert.Equal(destination.Length, read);
        Assert.Equal(BufferedReference.Read(file.Path, 9_999, destination.Length), destination);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Read_OfAnEvictedFile_LeavesThePageCacheNearlyEmpty()
    {
        using TestFile file = TestFile.Create(16 * TestFile.MiB);
        using var reader = DirectFileReader.Open(file.Path);

        reader.Read(0, new byte[(int)file.Length]);

        Assert.Equal(DirectReadMode.Direct, reader.Mode);
        ResidencyInfo residency = Residency.OfFile(file.Path);
        Assert.True(residency.Percent < 5, $"{residency.Percent:F1}% of the file is cached after a Direct read");
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Statistics_CountEveryRead()
    {
        using TestFile file = TestFile.Create(OddLength);
        using var reader = DirectFileReader.Open(file.Path);

        long started = Stopwatch.GetTimestamp();
        reader.Read(10, new byte[1000]);
        TimeSpan firstBracket = Stopwatch.GetElapsedTime(started);
        DirectReadStatistics first = reader.Statistics;
        started = Stopwatch.GetTimestamp();
        reader.Read(OddLength - 10, new byte[1000]);
        TimeSpan secondBracket = Stopwatch.GetElapsedTime(started);

        DirectReadStatistics stats = reader.Statistics;
        Assert.Equal(2, stats.Reads);
        Assert.Equal(1010, stats.BytesRead);
        Assert.Equal(1010, stats.DirectBytesRead);
        // Elapsed is the time inside Read, summed: each read adds some, no more than the call took.
        Assert.InRange(first.Elapsed, TimeSpan.FromTicks(1), firstBracket);
        Assert.InRange(stats.Elapsed - first.Elapsed, TimeSpan.FromTicks(1), secondBracket);
        Assert.Equal(1010 / (double)(1L << 30) / stats.Elapsed.TotalSeconds, stats.GiBPerSecond, 9);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Reader_NeverDisposed_AfterAParallelRead_IsStillCollected()
    {
        // Its own read threads park between reads without holding it, so a forgotten reader is finalized (which lets
        // the threads end) instead of leaking with them.
        using TestFile file = TestFile.Create(4 * TestFile.MiB);
        WeakReference reader = ReadOnceAndForget(file.Path);

        for (int i = 0; i < 10 && reader.IsAlive; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }

        Assert.False(reader.IsAlive);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static WeakReference ReadOnceAndForget(string path)
    {
        var reader = DirectFileReader.Open(path, new DirectReadOptions { BlockSize = 256 * 1024, MaxReadsInFlight = 4 });
        reader.Read(0, new byte[(int)TestFile.MiB]);
        return new WeakReference(reader);
    }
}
