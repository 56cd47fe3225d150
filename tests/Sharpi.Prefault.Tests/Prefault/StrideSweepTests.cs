using System.Collections.Concurrent;
using Microsoft.Extensions.Logging.Abstractions;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// The sweep's scheduler on its own: which chunks it hands out, on how many threads, when it says a region is done,
/// and where it stops when cancelled. The chunks go to a recording mechanism, so no address here is ever read (what a
/// chunk does to memory is <see cref="ChunkSweepTests"/>'s).
/// </summary>
public sealed class StrideSweepTests
{
    private static readonly nint Page = Environment.SystemPageSize;
    private static readonly nint Chunk = 4 * Page;

    /// <summary>Three regions far apart: one unaligned over several chunks, one exactly one chunk, one a few bytes.</summary>
    private static readonly MergedRegion[] Regions =
    [
        new((nint)0x1000_0000 + 100, (nint)0x1000_0000 + 100 + (3 * Chunk) + 5, "unaligned", 0),
        new((nint)0x2000_0000, (nint)0x2000_0000 + Chunk, "one chunk", 1),
        new((nint)0x3000_0000 + 10, (nint)0x3000_0000 + 20, "tiny", 2),
    ];

    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    public void Execute_GivesEveryPageAlignedChunkOfEveryRegionOnce(int threads)
    {
        var chunks = new RecordingChunks();
        var sweep = new StrideSweep(Regions, Chunk, chunks, regionDone: null, CancellationToken.None);

        sweep.Execute(threads, ThreadPriority.Normal, progress: null);

        (int, nint, nint)[] expected = [.. ExpectedChunks()];
        (int, nint, nint)[] swept = [.. chunks.Swept.Select(c => (c.Region, c.Start, c.End))];
        Assert.Equal(expected.Length, sweep.ChunkCount);
        if (threads == 1)
        {
            Assert.Equal(expected, swept); // one thread takes them in the order given
        }
        else
        {
            Assert.Equal(expected.Order(), swept.Order());
        }

        Assert.Equal(Regions.Sum(r => r.Length), sweep.BytesDone);
        Assert.Equal(sweep.BytesTotal, sweep.BytesDone);
    }

    [Fact]
    public void Execute_SaysARegionIsDone_OnceAndOnlyAfterEveryChunkOfItReturned()
    {
        var chunks = new RecordingChunks();
        var done = new ConcurrentQueue<int>();
        var early = new ConcurrentQueue<string>();
        int[] chunksOf = [.. Regions.Select((_, i) => ExpectedChunks().Count(c => c.Region == i))];
        var sweep = new StrideSweep(Regions, Chunk, chunks, region =>
        {
            if (chunks.ReturnedOf(region) != chunksOf[region])
            {
                early.Enqueue($"region {region} done after {chunks.ReturnedOf(region)} of {chunksOf[region]} chunks");
            }

            done.Enqueue(region);
        }, CancellationToken.None);

        sweep.Execute(maxThreads: 4, ThreadPriority.Normal, progress: null);

        Assert.Empty(early);
        Assert.Equal([0, 1, 2], done.Order());
    }

    [Fact]
    public void Execute_CancelledInsideAChunk_StartsNoFurtherChunk()
    {
        using var cancel = new CancellationTokenSource();
        var chunks = new RecordingChunks { OnChunk = n => { if (n == 2) { cancel.Cancel(); } } };
        var sweep = new StrideSweep(Regions, Chunk, chunks, regionDone: null, cancel.Token);

        sweep.Execute(maxThreads: 1, ThreadPriority.Normal, progress: null);

        Assert.Equal(3, chunks.Swept.Count); // the third chunk, in which it was cancelled, finishes; no fourth starts
        Assert.Equal(chunks.Swept.Sum(c => c.End - c.Start), sweep.BytesDone);
        Assert.True(sweep.BytesDone < sweep.BytesTotal);
    }

    [Fact]
    public void Execute_StartsNoMoreThreadsThanChunks_AndReturnsOnlyOnceEveryOneHasStopped()
    {
        // The helpers' chunks take a while (the caller's do not), so a sweep that did not wait for them would return
        // with them still in flight.
        MergedRegion[] threeChunks = [new((nint)0x1000_0000, (nint)0x1000_0000 + (3 * Chunk), "r", 0)];
        int caller = Environment.CurrentManagedThreadId;
        var chunks = new RecordingChunks { OnChunk = _ => { if (Environment.CurrentManagedThreadId != caller) { Thread.Sleep(50); } } };
        var sweep = new StrideSweep(threeChunks, Chunk, chunks, regionDone: null, CancellationToken.None);

        int threads = sweep.Execute(maxThreads: 8, ThreadPriority.Normal, progress: null);

        Assert.Equal(3, threads);
        Assert.Equal(0, chunks.InFlight);
        Assert.Equal(3, chunks.Swept.Count);
        Assert.Equal([0L, Chunk, 2 * Chunk], chunks.Swept.Select(c => (long)(c.Start - threeChunks[0].Start)).Order()); // each chunk once
    }

    [Fact]
    public void Execute_HelpersOnDemand_WhileTheCallerIsQuick_SweepsOnTheCallingThreadAlone()
    {
        var chunks = new RecordingChunks();
        var sweep = new StrideSweep(Regions, Chunk, chunks, regionDone: null, CancellationToken.None, new TestClock()); // frozen: never slow

        int threads = sweep.Execute(maxThreads: 4, ThreadPriority.Normal, progress: null, helpersOnDemand: true);

        Assert.Equal(1, threads);
        Assert.Equal([.. ExpectedChunks()], chunks.Swept.Select(c => (c.Region, c.Start, c.End)));
        Assert.All(chunks.Swept, c => Assert.Equal(Environment.CurrentManagedThreadId, c.Thread));
    }

    [Fact]
    public void Execute_HelpersOnDemand_OnceTheCallerHasSweptLongerThanHelpersCostAfterItsFirstChunk_StartsThem()
    {
        // The first chunk is not timed (it pays what runs once); the clock moves past the threshold over the second:
        // then 4 of the 6 chunks are left, for 3 helpers.
        var clock = new TestClock();
        var chunks = new RecordingChunks
        {
            OnChunk = n =>
            {
                if (n <= 1)
                {
                    clock.Advance(StrideSweep.HelpersAfter);
                }
            },
        };
        var sweep = new StrideSweep(Regions, Chunk, chunks, regionDone: null, CancellationToken.None, clock);

        int threads = sweep.Execute(maxThreads: 4, ThreadPriority.Normal, progress: null, helpersOnDemand: true);

        Assert.Equal(4, threads);
        Assert.All(chunks.Swept.Take(2), c => Assert.Equal(Environment.CurrentManagedThreadId, c.Thread));
        Assert.Equal(ExpectedChunks().Order(), chunks.Swept.Select(c => (c.Region, c.Start, c.End)).Order());
        Assert.Equal(sweep.BytesTotal, sweep.BytesDone);
    }

    [Fact]
    public void Execute_HelpersOnDemand_StartsNoMoreHelpersThanChunksLeft()
    {
        // Slow only from the third chunk on: 3 of the 6 chunks are left then, so 3 helpers, not the 5 that 6 threads would be.
        var clock = new TestClock();
        var chunks = new RecordingChunks { OnChunk = n => { if (n == 2) { clock.Advance(StrideSweep.HelpersAfter); } } };
        var sweep = new StrideSweep(Regions, Chunk, chunks, regionDone: null, CancellationToken.None, clock);

        int threads = sweep.Execute(maxThreads: 8, ThreadPriority.Normal, progress: null, helpersOnDemand: true);

        Assert.Equal(4, threads);
        Assert.Equal(6, chunks.Swept.Count);
    }

    [Fact]
    public void BytesDone_IsWhatTheMechanismSaysItSwept()
    {
        // A chunk that stopped short (past a file's end) counts only what came in.
        var chunks = new RecordingChunks { Returns = (start, end) => (end - start) / 2 };
        var sweep = new StrideSweep(Regions, Chunk, chunks, regionDone: null, CancellationToken.None);

        sweep.Execute(maxThreads: 2, ThreadPriority.Normal, progress: null);

        Assert.Equal(chunks.Swept.Sum(c => (c.End - c.Start) / 2), sweep.BytesDone);
        Assert.Equal(Regions.Sum(r => r.Length), sweep.BytesTotal);
    }

    [Fact]
    public void Execute_ReportsProgressOnTheCallingThread_EndingWithTheBytesDone()
    {
        var chunks = new RecordingChunks();
        var reports = new List<(PrefaultProgress Progress, int Thread)>();
        var sweep = new StrideSweep(Regions, Chunk, chunks, regionDone: null, CancellationToken.None);
        var reporter = new ProgressReporter(new CallbackProgress(p => reports.Add((p, Environment.CurrentManagedThreadId))), sweep.BytesTotal, "t", NullLogger.Instance);

        sweep.Execute(maxThreads: 4, ThreadPriority.Normal, reporter);

        Assert.NotEmpty(reports);
        Assert.All(reports, r => Assert.Equal(Environment.CurrentManagedThreadId, r.Thread));
        Assert.Equal(sweep.BytesTotal, reports[^1].Progress.BytesDone);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(3)]
    public void ExecuteBehindReadAhead_ReadsChunksAheadInOrder_OnTheCallingThread_AndSweepsEveryChunkOnce(int helpers)
    {
        var chunks = new RecordingChunks();
        var sweep = new StrideSweep(Regions, Chunk, chunks, regionDone: null, CancellationToken.None);

        int threads = sweep.ExecuteBehindReadAhead(helpers, ThreadPriority.Normal, aheadBytes: 2 * Chunk, progress: null);

        (int, nint, nint)[] expected = [.. ExpectedChunks()];
        Assert.Equal(expected.Order(), chunks.Swept.Select(c => (c.Region, c.Start, c.End)).Order());
        Assert.InRange(threads, 1, helpers + 1);
        Assert.Equal(sweep.BytesTotal, sweep.BytesDone);

        // Read ahead on the calling thread only, each chunk at most once, in the chunks' order.
        List<ReadAheadCall> reads = chunks.ReadsAhead;
        Assert.NotEmpty(reads);
        Assert.All(reads, r => Assert.Equal(Environment.CurrentManagedThreadId, r.Thread));
        int[] order = [.. reads.Select(r => Array.IndexOf(expected, (r.Region, r.Start, r.End)))];
        Assert.DoesNotContain(-1, order);
        Assert.Equal(order.Order(), order);
        Assert.Equal(order.Distinct().Count(), order.Length);

        // A chunk swept as read ahead was asked for before its sweep.
        Assert.All(chunks.Swept.Where(c => c.ReadAhead), c => Assert.Contains(reads, r => r.Start == c.Start && r.Sequence < c.Sequence));
    }

    [Fact]
    public void ExecuteBehindReadAhead_WithHelpersStuck_ReadsNoFurtherThanItsBoundAhead_AndSweepsItself()
    {
        // The helpers' first chunks hang until the calling thread has swept three of its own: the reads it asks for
        // meanwhile must stay within the bound of chunks read and not yet swept, and the sweep must go on without them.
        MergedRegion[] many = [new((nint)0x1000_0000, (nint)0x1000_0000 + (40 * Chunk), "r", 0)];
        int caller = Environment.CurrentManagedThreadId;
        using var release = new ManualResetEventSlim();
        int callerSwept = 0;
        bool helperTimedOut = false;
        var chunks = new RecordingChunks(regions: 1)
        {
            OnChunk = _ =>
            {
                if (Environment.CurrentManagedThreadId != caller)
                {
                    helperTimedOut |= !release.Wait(TimeSpan.FromSeconds(30)); // (an assert here would end the process)
                }
                else if (Interlocked.Increment(ref callerSwept) == 3)
                {
                    release.Set();
                }
            },
        };
        var sweep = new StrideSweep(many, Chunk, chunks, regionDone: null, CancellationToken.None);
        const long Ahead = 4;

        sweep.ExecuteBehindReadAhead(helpers: 2, ThreadPriority.Normal, aheadBytes: Ahead * Chunk, progress: null);

        Assert.False(helperTimedOut, "the calling thread never swept three chunks: it waited on the helpers");
        Assert.Equal(40, chunks.Swept.Count);
        Assert.Equal(40, chunks.Swept.Select(c => c.Start).Distinct().Count());
        Assert.True(callerSwept >= 3);
        Assert.All(chunks.ReadsAhead, r =>
        {
            long index = (r.Start - many[0].Start) / Chunk;
            Assert.True(index - r.ReturnedBefore < Ahead, $"chunk {index} read ahead with only {r.ReturnedBefore} chunks swept (bound {Ahead})");
        });
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void ExecuteBehindReadAhead_RunsItsHelpersAtTheirPriority_AndLeavesTheCallingThreadAlone()
    {
        // The kernel's own view of each thread that swept a chunk: nice value and scheduling policy from /proc.
        MergedRegion[] many = [new((nint)0x1000_0000, (nint)0x1000_0000 + (64 * Chunk), "r", 0)];
        int caller = Environment.CurrentManagedThreadId;
        (int Nice, int Policy) callerBefore = ThreadScheduling.OfCurrent();
        var seen = new ConcurrentQueue<(bool Caller, int Nice, int Policy)>();
        var chunks = new RecordingChunks(regions: 1)
        {
            OnChunk = _ =>
            {
                (int nice, int policy) = ThreadScheduling.OfCurrent();
                seen.Enqueue((Environment.CurrentManagedThreadId == caller, nice, policy));
                Thread.Sleep(1); // lets the helpers take chunks too
            },
        };
        var sweep = new StrideSweep(many, Chunk, chunks, regionDone: null, CancellationToken.None);

        sweep.ExecuteBehindReadAhead(helpers: 2, ThreadPriority.Lowest, aheadBytes: Chunk, progress: null);

        Assert.Contains(seen, s => !s.Caller);
        Assert.All(seen.Where(s => !s.Caller), s => Assert.Equal((WorkerPriority.LowestNice, ThreadScheduling.Other), (s.Nice, s.Policy)));
        Assert.All(seen.Where(s => s.Caller), s => Assert.Equal(callerBefore, (s.Nice, s.Policy)));
    }

    /// <summary>The chunks of <see cref="Regions"/>, worked out here from the chunk size: each region from its first page, in steps of a chunk, cut to the region.</summary>
    private static IEnumerable<(int Region, nint Start, nint End)> ExpectedChunks()
    {
        for (int i = 0; i < Regions.Length; i++)
        {
            MergedRegion r = Regions[i];
            for (nint at = r.Start & ~(Page - 1); at < r.End; at += Chunk)
            {
                yield return (i, Math.Max(at, r.Start), Math.Min(at + Chunk, r.End));
            }
        }
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void IsCutShort_OnlyWhereTheTokenLeftChunksUnswept_NotWhereChunksFailed(bool cancelAtTheLastChunk)
    {
        // Every chunk "fails" (brings no byte in), so BytesDone < BytesTotal whatever the token did: that inequality
        // called a sweep cancelled when the cancel landed after its last chunk was taken.
        using var cancel = new CancellationTokenSource();
        int last = ExpectedChunks().Count() - 1;
        var chunks = new RecordingChunks
        {
            Returns = (_, _) => 0,
            OnChunk = index =>
            {
                if (index == (cancelAtTheLastChunk ? last : 0))
                {
                    cancel.Cancel();
                }
            },
        };
        var sweep = new StrideSweep(Regions, Chunk, chunks, regionDone: null, cancel.Token);

        sweep.Execute(1, ThreadPriority.Normal, progress: null);

        Assert.True(cancel.IsCancellationRequested);
        Assert.True(sweep.BytesDone < sweep.BytesTotal);
        Assert.Equal(!cancelAtTheLastChunk, sweep.IsCutShort);
        Assert.Equal(cancelAtTheLastChunk ? last + 1 : 1, chunks.Swept.Count);
    }

    [Fact]
    public void Execute_WithATokenCancelledAlready_StartsNoHelper_AndSweepsNoChunk()
    {
        // One-page chunks and no limit on threads: a thread started per chunk, each to do nothing, until the cap.
        MergedRegion[] regions = [new((nint)0x1000_0000, (nint)0x1000_0000 + (1024 * Page), "many chunks", 0)];
        var chunks = new RecordingChunks(regions: 1);
        var sweep = new StrideSweep(regions, Page, chunks, regionDone: null, new CancellationToken(canceled: true));

        int threads = sweep.Execute(int.MaxValue, ThreadPriority.Normal, progress: null);

        Assert.Equal(1, threads);
        Assert.Empty(chunks.Swept);
    }

    [Theory]
    [InlineData(false, false)]
    [InlineData(false, true)]
    [InlineData(true, false)]
    [InlineData(true, true)]
    public void AThreadThatThrows_StopsTheOthers_AndTheExceptionLeavesOnTheCallingThread_OnceNoChunkIsInFlight(bool helperThrows, bool behindReadAhead)
    {
        // Many one-page chunks that each take a moment, so the other threads are mid-chunk when one throws.
        MergedRegion[] regions = [new((nint)0x1000_0000, (nint)0x1000_0000 + (400 * Page), "many chunks", 0)];
        int caller = Environment.CurrentManagedThreadId;
        var chunks = new ThrowingChunks(thrower: threadId => helperThrows ? threadId != caller : threadId == caller);
        var sweep = new StrideSweep(regions, Page, chunks, regionDone: null, CancellationToken.None);

        var thrown = Assert.Throws<InvalidOperationException>(() =>
        {
            if (behindReadAhead)
            {
                sweep.ExecuteBehindReadAhead(helpers: 4, ThreadPriority.Normal, aheadBytes: Page, progress: null);
            }
            else
            {
                sweep.Execute(4, ThreadPriority.Normal, progress: null);
            }
        });

        Assert.Equal(ThrowingChunks.Message, thrown.Message);
        Assert.Equal(0, chunks.InFlight); // every thread had stopped when the exception left
        int sweptWhenThrown = chunks.Started;
        Thread.Sleep(50);
        Assert.Equal(sweptWhenThrown, chunks.Started); // and none takes a chunk after it
        Assert.True(sweptWhenThrown < 400, $"the others swept on to the end ({sweptWhenThrown} chunks) instead of stopping");
    }

    /// <summary>One ReadAhead call: the chunk, the thread, when (in the recorder's sequence), and how many chunks had returned by then.</summary>
    private sealed record ReadAheadCall(int Region, nint Start, nint End, int Thread, long Sequence, int ReturnedBefore);

    /// <summary>A mechanism whose chunks take a millisecond each, and whose <c>thrower</c> thread throws at its third chunk.</summary>
    private sealed class ThrowingChunks(Func<int, bool> thrower) : IChunkSweep
    {
        internal const string Message = "a defect in the sweep";
        private readonly ConcurrentDictionary<int, int> _perThread = new();
        private int _inFlight;
        private int _started;
        private int _thrown;

        internal int InFlight => Volatile.Read(ref _inFlight);

        internal int Started => Volatile.Read(ref _started);

        public long SweepChunk(int region, nint start, nint end, bool readAhead)
        {
            Interlocked.Increment(ref _started);
            Interlocked.Increment(ref _inFlight);
            try
            {
                int thread = Environment.CurrentManagedThreadId;
                int count = _perThread.AddOrUpdate(thread, 1, static (_, n) => n + 1);
                if (thrower(thread) && count == 3 && Interlocked.Exchange(ref _thrown, 1) == 0)
                {
                    throw new InvalidOperationException(Message);
                }

                Thread.Sleep(1);
                return end - start;
            }
            finally
            {
                Interlocked.Decrement(ref _inFlight);
            }
        }

        public void ReadAhead(int region, nint start, nint end)
        {
        }
    }

    /// <summary>A mechanism that records each chunk it is given (and by which thread) and reads nothing.</summary>
    private sealed class RecordingChunks(int regions = 3) : IChunkSweep
    {
        private readonly ConcurrentQueue<(int Region, nint Start, nint End, int Thread, bool ReadAhead, long Sequence)> _swept = new();
        private readonly ConcurrentQueue<ReadAheadCall> _readsAhead = new();
        private readonly int[] _returned = new int[regions];
        private int _returnedAll;
        private long _sequence;
        private int _inFlight;
        private int _count;

        internal Action<int>? OnChunk { get; init; }

        internal Func<nint, nint, long> Returns { get; init; } = (start, end) => end - start;

        internal List<(int Region, nint Start, nint End, int Thread, bool ReadAhead, long Sequence)> Swept => [.. _swept];

        internal List<ReadAheadCall> ReadsAhead => [.. _readsAhead];

        internal int InFlight => Volatile.Read(ref _inFlight);

        internal int ReturnedOf(int region) => Volatile.Read(ref _returned[region]);

        public long SweepChunk(int region, nint start, nint end, bool readAhead)
        {
            Interlocked.Increment(ref _inFlight);
            _swept.Enqueue((region, start, end, Environment.CurrentManagedThreadId, readAhead, Interlocked.Increment(ref _sequence)));
            OnChunk?.Invoke(Interlocked.Increment(ref _count) - 1);
            Thread.Yield(); // let the other threads take chunks meanwhile
            Interlocked.Increment(ref _returned[region]);
            Interlocked.Increment(ref _returnedAll);
            Interlocked.Decrement(ref _inFlight);
            return Returns(start, end);
        }

        public void ReadAhead(int region, nint start, nint end) =>
            _readsAhead.Enqueue(new ReadAheadCall(region, start, end, Environment.CurrentManagedThreadId, Interlocked.Increment(ref _sequence), Volatile.Read(ref _returnedAll)));
    }
}
