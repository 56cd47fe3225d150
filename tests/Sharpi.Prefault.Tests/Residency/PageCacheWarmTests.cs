using System.Runtime.Versioning;

namespace Sharpi.Prefault.Tests;

/// <summary>PageCache.WarmAsync: the file's pages cached, read in the background, without the file in the process's RSS.</summary>
[Collection(ProcessMemoryFigures.Name)]
[SupportedOSPlatform("linux")] // every test needs Requirements.Linux
public sealed class PageCacheWarmTests(ITestOutputHelper output)
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task WarmAsync_OfAColdFile_CachesEveryPage()
    {
        using TestFile file = TestFile.Create(64 * TestFile.MiB);
        Assert.True(Residency.OfFile(file.Path).Percent < 5, "the file did not start cold");

        PageCacheWarmResult result = await PageCache.WarmAsync(file.Path);

        output.WriteLine($"{result.Method}: {result.BytesRead} bytes in {result.Elapsed.TotalMilliseconds:F0} ms");
        Assert.True(result.IsComplete, result.Error);
        Assert.Equal(file.Length, result.BytesRead);
        Assert.Equal(file.Length, result.FileLength);
        Assert.Equal("sendfile", result.Method);
        Assert.Equal(0, result.BytesAlreadyCached);
        Assert.Equal(100.0, Residency.OfFile(file.Path).Percent);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Cachestat))]
    public async Task WarmAsync_OfACachedFile_ReadsNoChunkAgain()
    {
        using TestFile file = TestFile.Create(64 * TestFile.MiB);
        await PageCache.WarmAsync(file.Path);

        PageCacheWarmResult again = await PageCache.WarmAsync(file.Path);

        Assert.True(again.IsComplete, again.Error ?? again.Method);
        Assert.Equal(file.Length, again.BytesAlreadyCached);
        Assert.Equal(file.Length, again.BytesRead);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task WarmAsync_LeavesTheFileOutOfTheProcessesRss()
    {
        // The check can fail: a mapping of the file, read through, would add its 256 MiB to RssFile while it is open.
        using TestFile file = TestFile.Create(256 * TestFile.MiB);
        long fileBefore = ProcessStatus.RssFileBytes;
        long anonBefore = ProcessStatus.ReadStatusBytes("RssAnon");

        PageCacheWarmResult result = await PageCache.WarmAsync(file.Path);

        long fileGrew = ProcessStatus.RssFileBytes - fileBefore;
        long anonGrew = ProcessStatus.ReadStatusBytes("RssAnon") - anonBefore;
        output.WriteLine($"RssFile +{fileGrew >> 10} KiB, RssAnon +{anonGrew >> 10} KiB for {result.BytesRead >> 20} MiB read");
        Assert.True(result.IsComplete, result.Error);
        Assert.True(fileGrew + anonGrew < 16 * TestFile.MiB, $"RSS grew by {(fileGrew + anonGrew) >> 20} MiB while 256 MiB were warmed");
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task WarmAsync_ReportsTheBytesReadAsItGoes()
    {
        using TestFile file = TestFile.Create(40 * TestFile.MiB);
        var reports = new System.Collections.Concurrent.ConcurrentBag<long>();

        PageCacheWarmResult result = await PageCache.WarmAsync(file.Path, new CallbackProgress<long>(reports.Add));

        Assert.Equal((int)((file.Length + FileWarmup.ChunkBytes - 1) / FileWarmup.ChunkBytes), reports.Count);
        Assert.Equal(file.Length, reports.Max());
        Assert.Equal(result.BytesRead, reports.Max());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task WarmAsync_OnADeviceThatReadsAheadAWholeChunk_ReadsOnOneThread_ElseOnFour()
    {
        // A read-mode host's own sequential read reaches the device's speed where read_ahead_kb is 8 MiB or more: four
        // warm-up streams beside it slowed LLamaSharp's load by a fifth there (llamasharp bench, read+warm, cold), one did not.
        using TestFile file = TestFile.Create(128 * TestFile.MiB);
        long readAhead = ReadAheadWindow.ReadAheadOf(FileStatus.Of(file.Path).Device);
        int expected = readAhead >= FileWarmup.ChunkBytes ? 1 : FileWarmup.Threads;
        int most = 0;
        file.Evict();

        PageCacheWarmResult result = await PageCache.WarmAsync(file.Path, new CallbackProgress<long>(_ =>
        {
            int now = ThreadScheduling.Named("sharpi-warm").Select(t => t.Task).Distinct().Count();
            InterlockedMax(ref most, now);
        }));

        output.WriteLine($"read_ahead_kb {readAhead / 1024}: at most {most} warm-up thread(s) seen, {expected} expected");
        Assert.True(result.IsComplete);
        Assert.InRange(most, expected == 1 ? 1 : 2, expected); // four may not all show at one report, but more than one does
    }

    private static void InterlockedMax(ref int target, int value)
    {
        int seen;
        while (value > (seen = Volatile.Read(ref target)) && Interlocked.CompareExchange(ref target, value, seen) != seen)
        {
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task WarmAsync_CancelledAfterTheFirstChunk_StopsEarly_AndSaysSo()
    {
        using TestFile file = TestFile.Create(256 * TestFile.MiB);
        using var cancel = new CancellationTokenSource();

        PageCacheWarmResult result = await PageCache.WarmAsync(file.Path, new CallbackProgress<long>(_ => cancel.Cancel()), cancel.Token);

        output.WriteLine($"{result.BytesRead >> 20} of {result.FileLength >> 20} MiB read before the cancellation took");
        Assert.True(result.IsCanceled);
        Assert.False(result.IsComplete);
        Assert.InRange(result.BytesRead, FileWarmup.ChunkBytes, FileWarmup.Threads * (long)FileWarmup.ChunkBytes);
        Assert.Null(result.Error);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task WarmAsync_OfAFileTruncatedWhileItRuns_EndsWithAnError_NotAnException()
    {
        using TestFile file = TestFile.Create(256 * TestFile.MiB);
        int truncated = 0;

        PageCacheWarmResult result = await PageCache.WarmAsync(file.Path, new CallbackProgress<long>(_ =>
        {
            if (Interlocked.Exchange(ref truncated, 1) == 0)
            {
                using var stream = new FileStream(file.Path, FileMode.Open, FileAccess.Write);
                stream.SetLength(16 * TestFile.MiB);
            }
        }));

        output.WriteLine($"{result.BytesRead >> 20} MiB read; {result.Error}");
        Assert.NotNull(result.Error);
        Assert.Contains("ended", result.Error, StringComparison.Ordinal);
        Assert.False(result.IsComplete);
        Assert.True(result.BytesRead < file.Length);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task WarmAsync_OfAnEmptyFile_CompletesWithNothingRead()
    {
        using TestFile file = TestFile.Create(0);

        PageCacheWarmResult result = await PageCache.WarmAsync(file.Path);

        Assert.True(result.IsComplete);
        Assert.Equal(0, result.BytesRead);
    }

    [Fact]
    public void WarmAsync_OfAMissingFile_ThrowsAtTheCall()
    {
        string missing = Path.Combine(Path.GetTempPath(), $"sharpi-missing-{Guid.NewGuid():N}");

        Assert.Throws<FileNotFoundException>(() => Begin(missing));
        Assert.Throws<ArgumentException>(() => Begin(string.Empty));
        Assert.Throws<ArgumentNullException>(() => Begin(null!));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void WarmAsync_WithAProgressThatThrows_GoesOnWithoutIt_AndTheProcessLives()
    {
        using TestFile file = TestFile.Create(32 * TestFile.MiB);

        // In a child: an exception that leaves a warm-up thread ends the process.
        CliRun run = ChildProcess.Run([ChildCases.ThrowingCallback, "warm-progress", file.Path], timeout: TimeSpan.FromSeconds(60));

        Assert.True(run.ExitCode == 0 && run.Out.Contains("done", StringComparison.Ordinal), $"the child died (exit {run.ExitCode}):\n{run.Out}\n{run.Err}");
        Assert.Equal("True", ChildProcess.Value(run, "warmComplete"));
        Assert.Equal(file.Length.ToString(System.Globalization.CultureInfo.InvariantCulture), ChildProcess.Value(run, "warmBytes"));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void WarmAsync_OfADevice_ThrowsAtTheCall_WithoutOpeningIt()
    {
        // A character device has no length to read and may act on open (a watchdog starts its timer): refused, as a FIFO is.
        IOException e = Assert.Throws<IOException>(() => Begin("/dev/zero"));

        Assert.Contains("device", e.Message, StringComparison.Ordinal);
    }

    // The call alone (what throws at the call throws here, before any await).
    private static void Begin(string path) => GC.KeepAlive(PageCache.WarmAsync(path).AsTask());
}
