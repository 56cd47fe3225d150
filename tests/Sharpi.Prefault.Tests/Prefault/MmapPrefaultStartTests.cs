namespace Sharpi.Prefault.Tests.Prefault;

public sealed class MmapPrefaultStartTests
{
    private const long MiB = TestFile.MiB;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task Start_ReturnsAtOnce_AndCompletesWithTheRegionsResident()
    {
        using TestFile file = TestFile.Create(128 * MiB);
        using MappedFile map = file.Map();

        await using PrefaultHandle handle = MmapPrefault.Start([map.Region("weights")]);
        PrefaultResult result = await handle.Completion;

        Assert.True(result.HasRun, result.Reason);
        Assert.Equal(file.Length, result.Bytes);
        Assert.Equal(100.0, map.ResidentPercent(), 3);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Start_RunsItsSweepBelowNormalPriority_UnlessTold()
    {
        using TestFile file = TestFile.Create(8 * MiB);
        using MappedFile map = file.Map();
        ThreadPriority? seen = null;
        var progress = new CallbackProgress(_ => seen ??= Thread.CurrentThread.Priority);

        using PrefaultHandle handle = MmapPrefault.Start([map.Region()], new PrefaultOptions { Progress = progress });
        handle.Completion.GetAwaiter().GetResult();

        Assert.Equal(ThreadPriority.BelowNormal, seen);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Dispose_FromItsOwnProgressCallback_ReturnsAndStopsTheSweep()
    {
        using TestFile file = TestFile.Create(64 * MiB);
        using MappedFile map = file.Map();
        PrefaultHandle? handle = null;
        using var started = new ManualResetEventSlim();
        var progress = new CallbackProgress(_ =>
        {
            started.Wait();
            handle!.Dispose(); // on the sweep's own thread: before, this waited on itself forever
        });

        // One thread, the one that reports: other workers would go on sweeping while the report waits, and a fast disk
        // finishes 64 MiB before the Dispose lands.
        handle = MmapPrefault.Start([map.Region()], new PrefaultOptions { Progress = progress, ChunkSize = 1 * MiB, MaxDegreeOfParallelism = 1 });
        started.Set();

        Assert.True(handle.Completion.Wait(TimeSpan.FromSeconds(30)), "the sweep never finished: Dispose deadlocked");
        // The first report comes after the first 1 MiB chunk of 64: the Dispose in it stops the rest.
        Assert.True(handle.Completion.Result.IsCanceled, handle.Completion.Result.Reason);
        Assert.True(handle.Completion.Result.Bytes < file.Length);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task WhenReady_CompletesEachRegion_WithItsPagesResident()
    {
        using TestFile file = TestFile.Create(64 * MiB);
        using MappedFile map = file.Map();
        PrefaultRegion[] layers = Enumerable.Range(0, 8).Select(i => map.Region(i * 8 * MiB, 8 * MiB, $"blk.{i}")).ToArray();

        await using PrefaultHandle handle = MmapPrefault.Start(layers, new PrefaultOptions { ChunkSize = 2 * MiB });
        for (int i = 0; i < layers.Length; i++)
        {
            await handle.WhenReady(i);

            Assert.True(handle.WhenReady(i).IsCompleted);
            Assert.Equal(100.0, Residency.Measure(layers[i]).Percent, 3);
        }

        Assert.Equal(file.Length, (await handle.Completion).Bytes);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task WhenReady_CompletesEachRegion_WithEveryPageMappedHere_NotMerelyReadAhead()
    {
        // Reading in windows (no huge-page advice), Start's background thread asks for the file's bytes ahead of the
        // sweep (into the page cache), and the sweep maps them: a region is ready once its pages are in this process's
        // page table (pagemap), which the page cache alone (what Residency sees) does not prove. 2 MiB chunks, so the
        // reads run up to 64 chunks ahead.
        using TestFile file = TestFile.Create(64 * MiB);
        using MappedFile map = file.Map();
        PrefaultRegion[] layers = [.. Enumerable.Range(0, 8).Select(i => map.Region(i * 8 * MiB, 8 * MiB, $"blk.{i}"))];
        var mappedWhenReady = new int[layers.Length];

        await using PrefaultHandle handle = MmapPrefault.Start(layers, new PrefaultOptions { ChunkSize = 2 * MiB, IsHugePageAdviceEnabled = false });
        for (int i = 0; i < layers.Length; i++)
        {
            await handle.WhenReady(i);
            mappedWhenReady[i] = PageMap.CountPresent(layers[i].Address, layers[i].Length);
        }

        PrefaultResult result = await handle.Completion;
        Assert.Equal(file.Length, result.Bytes);
        Assert.All(mappedWhenReady, mapped => Assert.Equal(8 * MiB / Environment.SystemPageSize, mapped));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task Start_OnOneThread_ReadsAheadAndSweepsAlone()
    {
        // MaxDegreeOfParallelism = 1, reading in windows: the background thread, which reads ahead, also sweeps every
        // chunk; no helper.
        using TestFile file = TestFile.Create(16 * MiB);
        using MappedFile map = file.Map();

        await using PrefaultHandle handle = MmapPrefault.Start([map.Region()],
            new PrefaultOptions { ChunkSize = MiB, MaxDegreeOfParallelism = 1, IsHugePageAdviceEnabled = false });
        PrefaultResult result = await handle.Completion;

        Assert.Equal(1, result.Threads);
        Assert.Equal(file.Length, result.Bytes);
        Assert.Equal((int)(file.Length / Environment.SystemPageSize), PageMap.CountPresent(map.Region().Address, file.Length));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task WhenReady_OfARegionTheSweepLeavesOut_CompletesAnyway()
    {
        using TestFile file = TestFile.Create(8 * MiB);
        using MappedFile map = file.Map();
        PrefaultRegion[] regions = [map.Region("mapped"), new PrefaultRegion(0x1000, 4096, "nowhere"), new PrefaultRegion(0x2000, 0, "empty")];

        await using PrefaultHandle handle = MmapPrefault.Start(regions);

        Task all = Task.WhenAll(handle.WhenReady(0), handle.WhenReady(1), handle.WhenReady(2));
        Assert.Same(all, await Task.WhenAny(all, Task.Delay(TimeSpan.FromSeconds(30))));
    }

    [Fact]
    public async Task WhenReady_WithAnIndexOutsideTheRegions_IsAnArgumentError()
    {
        await using PrefaultHandle handle = MmapPrefault.Start([new PrefaultRegion(0x1000, 0)]);

        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(async () => await handle.WhenReady(1));
        Assert.Throws<ArgumentOutOfRangeException>(() => handle.WhenReady(-1).IsCompleted);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Dispose_CancelsTheSweep_AndNothingTouchesTheRegionsAfterwards()
    {
        using TestFile file = TestFile.Create(256 * MiB);
        using MappedFile map = file.Map();
        using var sweeping = new ManualResetEventSlim();
        int reports = 0;
        // The first report holds the sweep for a moment, so the Dispose below surely lands mid-sweep.
        var progress = new CallbackProgress(_ =>
        {
            if (Interlocked.Increment(ref reports) == 1)
            {
                sweeping.Set();
                Thread.Sleep(200);
            }
        });
        PrefaultOptions slow = new PrefaultOptions { ChunkSize = MiB, MaxDegreeOfParallelism = 1, Progress = progress };

        var handle = MmapPrefault.Start([map.Region()], slow);
        Assert.True(sweeping.Wait(TimeSpan.FromSeconds(30)));
        handle.Dispose();

        Assert.True(handle.Completion.IsCompleted);
        PrefaultResult result = handle.Completion.Result;
        Assert.True(result.IsCanceled, result.Reason);
        Assert.True(result.Bytes < file.Length);

        // Count the pages mapped into this process (pagemap), not the page cache: the kernel's own async
        // read-ahead may still land in the page cache after the sweep stopped, but only a touch maps a page here.
        PrefaultRegion region = map.Region();
        int mappedAfterDispose = PageMap.CountPresent(region.Address, region.Length);
        Thread.Sleep(300);
        Assert.Equal(mappedAfterDispose, PageMap.CountPresent(region.Address, region.Length));
        handle.Dispose(); // idempotent
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task DisposeAsync_CancelsAndWaitsForTheWorkers()
    {
        // The first report holds the sweep until DisposeAsync has been called, so the cut surely lands mid-sweep and
        // DisposeAsync surely has a worker to wait for.
        using var held = new HeldSweep();
        PrefaultHandle handle = held.Handle;

        Task disposed = handle.DisposeAsync().AsTask();
        Assert.False(disposed.IsCompleted, "DisposeAsync returned while the worker was still in the sweep");
        held.Release();
        await disposed;

        Assert.True(handle.Completion.IsCompleted);
        PrefaultResult result = handle.Completion.Result;
        Assert.True(result.IsCanceled, result.Reason);
        Assert.InRange(result.Bytes, 1, HeldSweep.FileBytes - 1);
        Assert.Equal(HeldSweep.FileBytes - result.Bytes, result.BytesSkipped);
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ASecondDispose_OnAnotherThread_WaitsForTheSweepToo(bool async)
    {
        // The first report holds the sweep until released, so both Dispose calls surely land mid-sweep.
        using var held = new HeldSweep();
        PrefaultHandle handle = held.Handle;

        Task first = Task.Run(handle.Dispose);
        Assert.True(SpinWait.SpinUntil(() => handle.CancellationSource.IsCancellationRequested, TimeSpan.FromSeconds(30)), "the first Dispose never cancelled");

        // The second call, from a thread of its own (not the pool's, which a busy machine may be slow to give), must not
        // return while the sweep still runs: a shutdown path that unmaps the model after it would pull the regions
        // from under the sweep.
        using var entered = new ManualResetEventSlim();
        bool? completedWhenReturned = null;
        var second = new Thread(() =>
        {
            entered.Set();
            if (async)
            {
                handle.DisposeAsync().AsTask().GetAwaiter().GetResult();
            }
            else
            {
                handle.Dispose();
            }

            completedWhenReturned = handle.Completion.IsCompleted;
        });
        second.Start();
        Assert.True(entered.Wait(TimeSpan.FromSeconds(30)));
        Assert.False(second.Join(TimeSpan.FromMilliseconds(300)), "the second Dispose returned while the sweep was held mid-chunk");
        held.Release();

        Assert.True(second.Join(TimeSpan.FromSeconds(30)), "the second Dispose never returned");
        Assert.True(completedWhenReturned, "the second Dispose returned before the sweep completed");
        await first.WaitAsync(TimeSpan.FromSeconds(30));
        Assert.True(handle.Completion.Result.IsCanceled, handle.Completion.Result.Reason);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task WaitAsync_WithATimeoutThatPasses_Throws_AndTheSweepGoesOn()
    {
        using TestFile file = TestFile.Create(128 * MiB);
        using MappedFile map = file.Map();
        using var gate = new ManualResetEventSlim();
        var progress = new CallbackProgress(_ => gate.Wait(TimeSpan.FromSeconds(10)));

        // The first progress report blocks the sweep until the gate opens, so the timeout surely passes first.
        await using PrefaultHandle handle = MmapPrefault.Start([map.Region()], new PrefaultOptions { Progress = progress });

        await Assert.ThrowsAsync<TimeoutException>(() => handle.Completion.WaitAsync(TimeSpan.FromMilliseconds(50)));
        Assert.False(handle.Completion.Wait(TimeSpan.FromMilliseconds(10)));
        gate.Set();
        Assert.True(handle.Completion.Wait(TimeSpan.FromSeconds(30)));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task Start_WithTheCallersTokenCancelled_StopsTheSweep_AndSaysSo()
    {
        using TestFile file = TestFile.Create(128 * MiB);
        using MappedFile map = file.Map();
        using var cts = new CancellationTokenSource();
        using var gate = new ManualResetEventSlim();
        var progress = new CallbackProgress(_ => gate.Wait(TimeSpan.FromSeconds(10)));

        // The first progress report holds the sweep until the caller's token is cancelled, so the cut surely comes first.
        await using PrefaultHandle handle = MmapPrefault.Start([map.Region()],
            new PrefaultOptions { Progress = progress, ChunkSize = MiB, MaxDegreeOfParallelism = 1 }, cts.Token);
        await cts.CancelAsync();
        gate.Set();
        PrefaultResult result = await handle.Completion;

        Assert.True(result.IsCanceled, result.Reason);
        Assert.InRange(result.Bytes, 0, file.Length - 1);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task Start_WithAnAlreadyCancelledToken_TouchesNothing()
    {
        using TestFile file = TestFile.Create(16 * MiB);
        using MappedFile map = file.Map();

        await using PrefaultHandle handle = MmapPrefault.Start([map.Region()], cancellationToken: new CancellationToken(canceled: true));
        PrefaultResult result = await handle.Completion;

        Assert.True(result.IsCanceled, result.Reason);
        Assert.Equal(0, result.Bytes);
        Assert.True(map.ResidentPercent() < 1);
    }

    [Fact]
    public void Start_WithNegativeLength_ThrowsAtTheCall()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => MmapPrefault.Start([new PrefaultRegion(0x1000, -2)]));
    }

    [Fact]
    public async Task Start_CopiesTheRegions_SoTheCallersListMayChange()
    {
        using TestFile file = TestFile.Create(8 * MiB);
        using MappedFile map = file.Map();
        var regions = new List<PrefaultRegion> { map.Region("weights") };

        await using PrefaultHandle handle = MmapPrefault.Start(regions);
        regions[0] = new PrefaultRegion(0x1000, 1L << 40, "replaced later");
        regions.Add(new PrefaultRegion(0x2000, 1L << 40, "added later"));

        PrefaultResult result = await handle.Completion.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(file.Length, result.Bytes);
        Assert.Equal(file.Length, result.BytesRequested);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Start_WithALoggerThatThrows_CompletesWithTheFailure_AndTheProcessLives()
    {
        using TestFile file = TestFile.Create(4 * MiB);

        // In a child: an exception that leaves the handle's thread ends the process.
        CliRun run = ChildProcess.Run([ChildCases.ThrowingCallback, "start-logger", file.Path], timeout: TimeSpan.FromSeconds(60));

        Assert.True(run.ExitCode == 0 && run.Out.Contains("done", StringComparison.Ordinal), $"the child died (exit {run.ExitCode}):\n{run.Out}\n{run.Err}");
        Assert.Equal("False", ChildProcess.Value(run, "ran"));
        Assert.Contains("the logging provider failed", ChildProcess.Value(run, "reason"), StringComparison.Ordinal);
    }

    /// <summary>
    /// A Start over a cold 32 MiB file, on one thread in 1 MiB chunks, whose first progress report holds the sweep until
    /// <see cref="Release"/>; constructed once that report came. (The hold is bounded only so a broken handle fails, not
    /// hangs.)
    /// </summary>
    private sealed class HeldSweep : IDisposable
    {
        public const long FileBytes = 32 * MiB;

        private readonly TestFile _file = TestFile.Create(FileBytes);
        private readonly MappedFile _map;
        private readonly ManualResetEventSlim _sweeping = new();
        private readonly ManualResetEventSlim _release = new();

        public HeldSweep()
        {
            _map = _file.Map();
            var progress = new CallbackProgress(_ =>
            {
                _sweeping.Set();
                _release.Wait(TimeSpan.FromSeconds(30));
            });
            Handle = MmapPrefault.Start([_map.Region()], new PrefaultOptions { Progress = progress, ChunkSize = MiB, MaxDegreeOfParallelism = 1 });
            Assert.True(_sweeping.Wait(TimeSpan.FromSeconds(30)));
        }

        public PrefaultHandle Handle { get; }

        /// <summary>Lets the held report return, and the sweep go on.</summary>
        public void Release() => _release.Set();

        /// <summary>Releases the sweep and waits for it before the file is unmapped.</summary>
        public void Dispose()
        {
            _release.Set();
            Handle.Dispose();
            _map.Dispose();
            _file.Dispose();
            _sweeping.Dispose();
            _release.Dispose();
        }
    }
}
