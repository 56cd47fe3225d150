using System.Runtime.ExceptionServices;

namespace Sharpi.Prefault;

/// <summary>Threads take chunks in order from one counter, so regions finish in order. No locks, no allocation per chunk.</summary>
internal sealed class StrideSweep
{
    private readonly MergedRegion[] _regions;
    private readonly long[] _firstChunk; // each region's first chunk, then the total
    private readonly long _chunkSize;
    private readonly IChunkSweep _chunks;
    private readonly CancellationToken _token;
    private readonly long[] _chunksLeft;
    private readonly Action<int>? _regionDone;
    private readonly TimeProvider _clock;
    private long _nextChunk = -1;
    private long _bytesDone;
    private long _chunksSwept;
    private long _readAheadEnd;
    private volatile bool _stopped; // a thread failed
    private ExceptionDispatchInfo? _helperFailure;

    /// <summary><paramref name="regionDone"/> runs on a sweep thread once a region's last chunk is swept, failed or not.</summary>
    internal StrideSweep(MergedRegion[] regions, long chunkSize, IChunkSweep chunks, Action<int>? regionDone, CancellationToken token, TimeProvider? clock = null,
        long bytesBefore = 0)
    {
        _bytesDone = bytesBefore;
        _clock = clock ?? TimeProvider.System;
        _regions = regions;
        _chunkSize = chunkSize;
        _chunks = chunks;
        _regionDone = regionDone;
        _token = token;
        _chunksLeft = new long[regions.Length];
        _firstChunk = new long[regions.Length + 1];
        long count = 0;
        for (int i = 0; i < regions.Length; i++)
        {
            _firstChunk[i] = count;
            nint alignedStart = Pages.Floor(regions[i].Start);
            _chunksLeft[i] = (regions[i].End - alignedStart + chunkSize - 1) / chunkSize;
            count += _chunksLeft[i];
        }

        _firstChunk[regions.Length] = count;
        BytesTotal = RegionSet.TotalBytes(regions);
    }

    internal long BytesTotal { get; }

    internal long BytesDone => Volatile.Read(ref _bytesDone);

    /// <summary>After the sweep: the token stopped it with chunks never handed out.</summary>
    internal bool IsCutShort => Volatile.Read(ref _nextChunk) < ChunkCount - 1;

    internal long ChunkCount => _firstChunk[^1];

    /// <summary>The most threads a sweep starts: eight a processor, as a sweep mostly waits on the disk.</summary>
    internal static int MaxThreads => Math.Max(PrefaultOptions.DefaultMaxDegreeOfParallelism, 8 * Environment.ProcessorCount);

    /// <summary>How long the caller sweeps alone before helpers start on demand: a warm set of huge folios is done sooner.</summary>
    internal static readonly TimeSpan HelpersAfter = TimeSpan.FromMilliseconds(4);

    /// <summary>
    /// Returns the threads that swept, once all have stopped: nothing touches the regions after. A thread's exception
    /// stops the others and is rethrown here, never on a helper, where it would end the process.
    /// </summary>
    internal int Execute(int maxThreads, ThreadPriority priority, ProgressReporter? progress, bool helpersOnDemand = false)
    {
        int threads = (int)Math.Clamp(Math.Min(Math.Min(maxThreads, MaxThreads), ChunkCount), 1, int.MaxValue);
        var helpers = new List<Thread>(threads - 1);
        bool swept = false;
        try
        {
            if (!helpersOnDemand)
            {
                StartHelpers(threads - 1, priority, helpers);
            }
            else if (threads > 1 && SweepNext(progress))
            {
                // The first chunk pays what runs once.
                long started = _clock.GetTimestamp();
                while (SweepNext(progress))
                {
                    if (_clock.GetElapsedTime(started) >= HelpersAfter)
                    {
                        StartHelpers((int)Math.Min(threads - 1, ChunksLeft), priority, helpers);
                        break;
                    }
                }
            }

            Work(progress);
            swept = true;
        }
        finally
        {
            JoinAll(helpers, progress, stopOthers: !swept);
        }

        return End(helpers, progress);
    }

    /// <summary>The caller reads at most <paramref name="aheadBytes"/> ahead of the helpers' sweep. Returns as <see cref="Execute"/>.</summary>
    internal int ExecuteBehindReadAhead(int helpers, ThreadPriority helperPriority, long aheadBytes, ProgressReporter? progress)
    {
        long aheadChunks = Math.Max(1, aheadBytes / _chunkSize);
        long nextRead = 0;
        List<Thread>? started = null;
        bool swept = false;
        try
        {
            while (!_token.IsCancellationRequested && !_stopped)
            {
                // Never read behind the sweep.
                nextRead = Math.Max(nextRead, Volatile.Read(ref _nextChunk) + 1);
                if (nextRead < ChunkCount && nextRead - Volatile.Read(ref _chunksSwept) < aheadChunks)
                {
                    (int region, nint start, nint end) = ChunkRange(nextRead);
                    _chunks.ReadAhead(region, start, end);
                    Volatile.Write(ref _readAheadEnd, ++nextRead);
                }
                else if (!SweepNext(progress))
                {
                    break;
                }

                // After the first read-ahead, so no helper reads at its priority.
                if (started is null)
                {
                    started = new List<Thread>(helpers);
                    StartHelpers((int)Math.Clamp(Math.Min(Math.Min(helpers, MaxThreads - 1), ChunkCount - 1), 0, int.MaxValue), helperPriority, started);
                }
            }

            swept = true;
        }
        finally
        {
            JoinAll(started ??= [], progress, stopOthers: !swept);
        }

        return End(started, progress);
    }

    private int End(List<Thread> helpers, ProgressReporter? progress)
    {
        _helperFailure?.Throw();
        progress?.Complete(BytesDone);
        return helpers.Count + 1;
    }

    /// <summary>Waits for every helper, even when interrupted (then rethrows).</summary>
    private void JoinAll(List<Thread> helpers, ProgressReporter? progress, bool stopOthers)
    {
        if (stopOthers)
        {
            _stopped = true;
            progress = null;
        }

        ThreadInterruptedException? interrupted = null;
        foreach (Thread helper in helpers)
        {
            while (true)
            {
                try
                {
                    if (helper.Join(100))
                    {
                        break;
                    }
                }
                catch (ThreadInterruptedException ex)
                {
                    interrupted ??= ex;
                    _stopped = true;
                    progress = null;
                    continue;
                }

                progress?.Report(BytesDone);
            }
        }

        if (interrupted is not null)
        {
            ExceptionDispatchInfo.Throw(interrupted);
        }
    }

    private long ChunksLeft => Math.Max(0, ChunkCount - (Volatile.Read(ref _nextChunk) + 1));

    private void StartHelpers(int count, ThreadPriority priority, List<Thread> helpers)
    {
        for (int i = 0; i < count && !_token.IsCancellationRequested; i++)
        {
            var helper = new Thread(() =>
            {
                try
                {
                    WorkerPriority.ApplyToCurrentThread(priority);
                    Work(null);
                }
#pragma warning disable CA1031 // Rethrown on the calling thread.
                catch (Exception ex)
#pragma warning restore CA1031
                {
                    Interlocked.CompareExchange(ref _helperFailure, ExceptionDispatchInfo.Capture(ex), null);
                    _stopped = true;
                }
            }, maxStackSize: 256 * 1024)
            {
                IsBackground = true,
                Name = "Sharpi.Prefault sweep",
            };
            try
            {
                helper.Start();
            }
            catch (OutOfMemoryException)
            {
                // pids.max: sweep with the threads started.
                break;
            }

            helpers.Add(helper);
        }
    }

    private void Work(ProgressReporter? progress)
    {
        while (SweepNext(progress))
        {
        }
    }

    private bool SweepNext(ProgressReporter? progress)
    {
        long chunk;
        if (_token.IsCancellationRequested || _stopped || (chunk = Interlocked.Increment(ref _nextChunk)) >= ChunkCount)
        {
            return false;
        }

        SweepChunk(chunk);

        progress?.Report(BytesDone);
        return true;
    }

    private void SweepChunk(long chunk)
    {
        (int region, nint start, nint end) = ChunkRange(chunk);
        Interlocked.Add(ref _bytesDone, _chunks.SweepChunk(region, start, end, readAhead: chunk < Volatile.Read(ref _readAheadEnd)));
        if (Interlocked.Decrement(ref _chunksLeft[region]) == 0)
        {
            _regionDone?.Invoke(region);
        }

        Interlocked.Increment(ref _chunksSwept);
    }

    private ChunkSpan ChunkRange(long chunk)
    {
        int region = RegionOf(chunk);
        MergedRegion r = _regions[region];
        nint chunkStart = Pages.Floor(r.Start) + (nint)((chunk - _firstChunk[region]) * _chunkSize);
        nint start = chunkStart > r.Start ? chunkStart : r.Start;
        nint end = chunkStart + (nint)_chunkSize < r.End ? chunkStart + (nint)_chunkSize : r.End;
        return new ChunkSpan(region, start, end);
    }

    private int RegionOf(long chunk)
    {
        int lo = 0, hi = _regions.Length - 1;
        while (lo < hi)
        {
            int mid = (lo + hi + 1) >>> 1;
            if (_firstChunk[mid] <= chunk)
            {
                lo = mid;
            }
            else
            {
                hi = mid - 1;
            }
        }

        return lo;
    }
}

/// <summary>What the sweep does to one chunk; called on every sweep thread at once.</summary>
internal interface IChunkSweep
{
    /// <summary>Sweeps a chunk; returns the bytes brought in.</summary>
    long SweepChunk(int region, nint start, nint end, bool readAhead);

    /// <summary>Asks for a chunk's file bytes without waiting for them.</summary>
    void ReadAhead(int region, nint start, nint end);
}

/// <summary>Not a value tuple, which a ReadyToRun image cannot hold.</summary>
internal readonly record struct ChunkSpan(int Region, nint Start, nint End);
