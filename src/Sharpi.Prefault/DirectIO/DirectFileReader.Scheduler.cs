using System.Runtime.ExceptionServices;

namespace Sharpi.Prefault;

// Parallel read scheduling: a read is one pass over its range, or two when Direct I/O is refused part-way.
public sealed unsafe partial class DirectFileReader
{
    /// <summary>Direct while the reader is, else buffered; null when nothing is to read.</summary>
    private ReadJob? FirstPass(long offset, nint destination, long length, CancellationToken cancellationToken)
    {
        long fileLength = RandomAccess.GetLength(_handle);
        if (length <= 0 || offset >= fileLength)
        {
            return null;
        }

        long end = offset + Math.Min(length, fileLength - offset);
        return NewPass(offset, end, destination, staged: _mode == DirectReadMode.Direct, cancellationToken);
    }

    /// <summary>Staged: aligned blocks through the staging buffers, or straight where aligned.</summary>
    private ReadJob NewPass(long offset, long end, nint destination, bool staged, CancellationToken cancellationToken)
    {
        long mask = staged ? _offsetAlignment - 1 : 0;
        long start = offset & ~mask;
        long readEnd = (end + mask) & ~mask;
        long blockCount = (readEnd - start + _blockSize - 1) / _blockSize;
        return new ReadJob(this, (int)Math.Min(_readsInFlight, blockCount))
        {
            Offset = offset,
            End = end,
            Start = start,
            ReadEnd = readEnd,
            BlockCount = blockCount,
            Destination = destination,
            Staged = staged,
            Token = cancellationToken,
        };
    }

    /// <summary>Runs a pass here and on the reader's threads; returns when all workers have stopped.</summary>
    private void Run(ReadJob pass)
    {
        int unserved = _workers.Start(pass, pass.Workers - 1);
        pass.RunOneWorker();
        RunUnserved(pass, unserved); // no thread started: every block read here

        // Waits only for the reader's own threads, never for thread-pool work.
        pass.Completion.Wait();
    }

    /// <summary>Starts a pass on the reader's threads; the task completes (never faults) when all have stopped.</summary>
    private Task StartOnWorkers(ReadJob pass)
    {
        RunUnserved(pass, _workers.Start(pass, pass.Workers));
        return pass.Completion;
    }

    /// <summary>Runs here the workers no thread could start for; logs it once.</summary>
    private void RunUnserved(ReadJob pass, int workers)
    {
        if (workers == 0)
        {
            return;
        }

        if (Interlocked.Exchange(ref _threadsRefused, 1) == 0)
        {
            Log.DirectIOThreadsUnavailable(_logger, Path);
        }

        for (int i = 0; i < workers; i++)
        {
            pass.RunOneWorker();
        }
    }

    /// <summary>
    /// Throws a finished pass's failure or cancellation; after a refused Direct pass, falls back and returns the buffered
    /// pass; else null.
    /// </summary>
    private ReadJob? NextPass(ReadJob pass)
    {
        pass.Failure?.Throw();
        if (pass.Cancelled)
        {
            pass.Token.ThrowIfCancellationRequested();
        }

        if (pass.Errno == 0)
        {
            return null;
        }

        if (pass.Staged && IsRefusal(pass.Errno))
        {
            FallBack(pass.Errno, pass.ErrorOffset);
            return NewPass(pass.Offset, pass.End, pass.Destination, staged: false, pass.Token);
        }

        ThrowHelper.ThrowReadFailed(Path, pass.ErrorOffset, Math.Min(_blockSize, pass.ReadEnd - pass.ErrorOffset), pass.Errno);
        return null;
    }

    /// <summary>Reads blocks until none is left, copying out the requested part.</summary>
    private void Work(int slot, ReadJob job)
    {
        try
        {
            byte* staging = null;
            while (!job.Stop)
            {
                long block = Interlocked.Increment(ref job.NextBlock);
                if (block >= job.BlockCount)
                {
                    return;
                }

                if (job.Token.IsCancellationRequested)
                {
                    job.Cancelled = true;
                    job.Stop = true;
                    return;
                }

                long blockStart = job.Start + (block * _blockSize);
                int want = (int)Math.Min(_blockSize, job.ReadEnd - blockStart);
                byte* direct = (byte*)job.Destination + (blockStart - job.Offset);

                // A block inside the range with an aligned destination is read straight there.
                bool copy = job.Staged
                    && (blockStart < job.Offset || blockStart + want > job.End || ((nint)direct & (_memoryAlignment - 1)) != 0);
                int got;
                int errno;
                if (copy)
                {
                    staging = staging != null ? staging : _buffers.Get(slot);
                    _buffers.BeginRead(want);
                    got = Fill(staging, want, blockStart, staged: true, out errno);
                    _buffers.EndRead(want);
                }
                else
                {
                    got = Fill(direct, want, blockStart, job.Staged, out errno);
                }

                if (errno != 0)
                {
                    job.Fail(errno, blockStart);
                    return;
                }

                if (copy)
                {
                    long copyStart = Math.Max(blockStart, job.Offset);
                    long copyEnd = Math.Min(blockStart + got, job.End);
                    if (copyEnd > copyStart)
                    {
                        System.Buffer.MemoryCopy(staging + (copyStart - blockStart), (byte*)job.Destination + (copyStart - job.Offset),
                            copyEnd - copyStart, copyEnd - copyStart);
                    }
                }

                if (got < want)
                {
                    job.NoteShortEnd(blockStart + got);
                }
            }
        }
        catch (Exception e)
        {
            Interlocked.CompareExchange(ref job.Failure, ExceptionDispatchInfo.Capture(e), null);
            job.Stop = true;
        }
    }

    /// <summary>The shared state of one pass's workers.</summary>
    private sealed class ReadJob(DirectFileReader reader, int workers)
    {
        private readonly TaskCompletionSource _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _nextSlot = -1;
        private int _running = workers;

        internal long NextBlock = -1;
        internal long ShortEnd = long.MaxValue;
        internal int Errno;
        internal long ErrorOffset;
        internal volatile bool Stop;
        internal volatile bool Cancelled;
        internal ExceptionDispatchInfo? Failure;

        /// <summary>Reads in flight, or fewer for fewer blocks.</summary>
        internal int Workers { get; } = workers;

        /// <summary>Completes (never faults) when the last worker stops; read <see cref="Failure"/> and <see cref="Errno"/> then.</summary>
        internal Task Completion => _completion.Task;

        internal required long Offset { get; init; }

        internal required long End { get; init; }

        internal required long Start { get; init; }

        internal required long ReadEnd { get; init; }

        internal required long BlockCount { get; init; }

        internal required nint Destination { get; init; }

        internal required bool Staged { get; init; }

        internal required CancellationToken Token { get; init; }

        /// <summary>All of [Offset, End), or up to where the file turned out to end.</summary>
        internal long BytesRead => Math.Max(0, Math.Min(End, Interlocked.Read(ref ShortEnd)) - Offset);

        /// <summary>Runs one worker on the calling thread; called <see cref="Workers"/> times in all.</summary>
        internal void RunOneWorker()
        {
            try
            {
                reader.Work(Interlocked.Increment(ref _nextSlot), this);
            }
            finally
            {
                if (Interlocked.Decrement(ref _running) == 0)
                {
                    _completion.SetResult();
                }
            }
        }

        internal void Fail(int errno, long fileOffset)
        {
            if (Interlocked.CompareExchange(ref Errno, errno, 0) == 0)
            {
                ErrorOffset = fileOffset;
            }

            Stop = true;
        }

        internal void NoteShortEnd(long fileOffset)
        {
            long seen = Interlocked.Read(ref ShortEnd);
            while (fileOffset < seen)
            {
                long previous = Interlocked.CompareExchange(ref ShortEnd, fileOffset, seen);
                if (previous == seen)
                {
                    break;
                }

                seen = previous;
            }
        }
    }
}
