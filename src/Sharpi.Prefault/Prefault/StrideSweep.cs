using System.Runtime.ExceptionServices;

namespace Sharpi.Prefault;

/// <summary>
/// The parallel sweep's scheduler. The regions are cut into page-aligned chunks, and every thread takes the next chunk
/// in the order given from one shared counter, so regions finish in that order (what <see cref="PrefaultHandle.WhenReady"/>
/// reports). What happens to a chunk is the mechanism's (<see cref="IChunkSweep"/>, the run's <see cref="ChunkSweep"/>):
/// this type starts the threads, hands the chunks out, says when a region is done, reports progress and stops between
/// chunks when cancelled. No locks, and no allocation per chunk.
/// </summary>
internal sealed class StrideSweep
{
    private readonly MergedRegion[] _regions;
    private readonly long[] _firstChunk; // _firstChunk[i] is the index of region i's first chunk; the last entry is the total
    private readonly long _chunkSize;
    private readonly IChunkSweep _chunks;
    private readonly CancellationToken _token;
    private readonly long[] _chunksLeft; // per region: chunks not yet swept; the one that ends it reports the region done
    private readonly Action<int>? _regionDone;
    private readonly TimeProvider _clock;
    private long _nextChunk = -1;
    private long _bytesDone;
    private long _chunksSwept;  // chunks whose sweep returned
    private long _readAheadEnd; // chunks below it were read ahead (ExecuteBehindReadAhead)
    private volatile bool _stopped; // a thread failed: no thread takes another chunk
    private ExceptionDispatchInfo? _helperFailure; // the first exception a helper thread threw, rethrown on the calling thread

    /// <param name="regions">The regions, in the order they should become resident.</param>
    /// <param name="chunkSize">Bytes per chunk (whole pages).</param>
    /// <param name="chunks">What is done to each chunk.</param>
    /// <param name="regionDone">Called (on a sweep thread) with a region's index once its last chunk is swept, failed or not.</param>
    /// <param name="token">Stops the sweep between chunks.</param>
    /// <param name="clock">Times the calling thread's lone start when the helpers start on demand; the system's by default.</param>
    /// <param name="bytesBefore">Bytes an earlier part of the same run swept (a trial's), counted in <see cref="BytesDone"/> and progress.</param>
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

    /// <summary>The bytes the chunks swept so far, as the mechanism counted them.</summary>
    internal long BytesDone => Volatile.Read(ref _bytesDone);

    /// <summary>
    /// After the sweep: the token stopped it with chunks never handed out. (Handing a chunk out moves the counter
    /// once; a thread that finds none left moves it past the last, which no cancelled thread does. A cancel that lands
    /// after the last chunk was taken cuts nothing short, whatever failed.)
    /// </summary>
    internal bool IsCutShort => Volatile.Read(ref _nextChunk) < ChunkCount - 1;

    internal long ChunkCount => _firstChunk[^1];

    /// <summary>
    /// The most threads one sweep starts, whatever <see cref="PrefaultOptions.MaxDegreeOfParallelism"/> asks: eight
    /// per processor, never fewer than the default; a sweep waits on the disk far more than it computes, and a thread
    /// per chunk (<c>int.MaxValue</c> with one-page chunks) would never finish.
    /// </summary>
    internal static int MaxThreads => Math.Max(PrefaultOptions.DefaultMaxDegreeOfParallelism, 8 * Environment.ProcessorCount);

    /// <summary>
    /// How long the calling thread sweeps alone, where the helpers start on demand, before it starts them: a few times
    /// what starting them costs, so a warm set of huge folios (mapped in well under this) never starts them.
    /// </summary>
    internal static readonly TimeSpan HelpersAfter = TimeSpan.FromMilliseconds(4);

    /// <summary>
    /// Sweeps on up to <paramref name="maxThreads"/> threads, no more than there are chunks nor than
    /// <see cref="MaxThreads"/> (the calling thread is one of them), and returns when every worker has stopped, so
    /// nothing touches the regions after this returns; cancelled, it starts no further thread. With
    /// <paramref name="helpersOnDemand"/> (nothing left to read: only page tables to fill) the calling thread starts
    /// alone and starts the others only once it has swept for <see cref="HelpersAfter"/> past its first chunk with chunks left.
    /// A thread that throws (a defect, not a failed page: those are the mechanism's to record) stops the others after
    /// their chunks in flight; the exception leaves here, on the calling thread, once every thread has stopped, never
    /// on a helper thread, where it would end the process.
    /// </summary>
    /// <returns>The number of threads that swept.</returns>
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
                // Timed from the end of the first chunk, which pays what runs once (compiling the sweep, the first page tables).
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

    /// <summary>
    /// A background sweep: the calling thread, at its own priority, asks for each chunk's file bytes in the chunks'
    /// order (<see cref="IChunkSweep.ReadAhead"/>: the device reads while the engine's init computes), never more than
    /// <paramref name="aheadBytes"/> (at least one chunk) ahead of the chunks swept, and sweeps the next chunk itself
    /// whenever it may read no further; <paramref name="helpers"/> more threads at <paramref name="helperPriority"/>
    /// sweep chunks in the same order where the cores have time for them. A thread that reaches a chunk not read
    /// ahead yet reads it itself. Returns when every thread has stopped, so nothing touches the regions after this
    /// returns. Cancelled, it starts no further thread.
    /// </summary>
    /// <returns>The number of threads that swept, the calling thread included.</returns>
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
                // Chunks a thread took already are read by that thread: never read behind the sweep.
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

                // The helpers start once the first chunk is asked for, so none of them reads one at its own priority.
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

    /// <summary>Once every thread stopped: a helper's exception leaves here, else the last progress; the threads that swept.</summary>
    private int End(List<Thread> helpers, ProgressReporter? progress)
    {
        _helperFailure?.Throw();
        progress?.Complete(BytesDone);
        return helpers.Count + 1;
    }

    /// <summary>
    /// Waits for every helper to stop, the calling thread reporting progress meanwhile. With <paramref name="stopOthers"/>
    /// (the calling thread threw) it reports nothing and stops the others: after their chunks in flight, they take no
    /// other. Interrupted (<see cref="Thread.Interrupt"/>), it stops them too and still waits for them all, then rethrows.
    /// </summary>
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

    /// <summary>Chunks not yet handed out.</summary>
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
#pragma warning disable CA1031 // An exception that leaves a helper thread ends the process: the calling thread rethrows it.
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
                // No more threads (a container's pids.max, say): sweep with those started, and join them all after,
                // so nothing touches the regions after Execute returns.
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

    /// <summary>Sweeps the next chunk; false when none is left or the sweep is cancelled.</summary>
    private bool SweepNext(ProgressReporter? progress)
    {
        long chunk;
        if (_token.IsCancellationRequested || _stopped || (chunk = Interlocked.Increment(ref _nextChunk)) >= ChunkCount)
        {
            return false;
        }

        SweepChunk(chunk);

        // Only the calling thread has a reporter; it throttles to ten reports a second.
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

    /// <summary>The region of <paramref name="chunk"/> and the chunk's bytes in it.</summary>
    private ChunkSpan ChunkRange(long chunk)
    {
        int region = RegionOf(chunk);
        MergedRegion r = _regions[region];
        nint chunkStart = Pages.Floor(r.Start) + (nint)((chunk - _firstChunk[region]) * _chunkSize);
        nint start = chunkStart > r.Start ? chunkStart : r.Start;
        nint end = chunkStart + (nint)_chunkSize < r.End ? chunkStart + (nint)_chunkSize : r.End;
        return new ChunkSpan(region, start, end);
    }

    /// <summary>The region holding <paramref name="chunk"/>: a binary search over the regions' first chunks.</summary>
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

/// <summary>What the sweep does to one chunk (<see cref="StrideSweep"/> schedules, this sweeps): called on any sweep thread, many at once.</summary>
internal interface IChunkSweep
{
    /// <summary>
    /// Sweeps [<paramref name="start"/>, <paramref name="end"/>) of region <paramref name="region"/>; returns the bytes
    /// brought in, for progress. <paramref name="readAhead"/>: <see cref="ReadAhead"/> ran for this chunk already.
    /// </summary>
    long SweepChunk(int region, nint start, nint end, bool readAhead);

    /// <summary>Asks for the file bytes of a chunk before its sweep, without waiting for them (a background sweep's reader).</summary>
    void ReadAhead(int region, nint start, nint end);
}

/// <summary>
/// A chunk's region and its bytes in it: a struct of the library's own, not a value tuple, whose constructor an
/// engine's first call would have the JIT compile (a ReadyToRun image cannot hold the framework's generic over it).
/// </summary>
internal readonly record struct ChunkSpan(int Region, nint Start, nint End);
