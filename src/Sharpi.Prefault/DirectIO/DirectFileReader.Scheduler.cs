using System.Runtime.ExceptionServices;

namespace Sharpi.Prefault;

/// <summary>Parallel read scheduling: a read's blocks, up to the reads in flight at once.</summary>
public sealed unsafe partial class DirectFileReader
{
    /// <summary>
    /// Reads [offset, end) in blocks, up to <see cref="_readsInFlight"/> at once (the calling thread is one of the
    /// workers). Staged: aligned blocks that cover the range, through the aligned buffers. Not staged: straight into the
    /// destination. False when Direct I/O was refused; the reader is then buffered and the caller reads again.
    /// </summary>
    private bool TryReadRange(long offset, long end, byte* destination, bool staged, CancellationToken cancellationToken, out long read)
    {
        long mask = staged ? _offsetAlignment - 1 : 0;
        long start = offset & ~mask;
        long readEnd = (end + mask) & ~mask;
        var job = new ReadJob
        {
            Offset = offset,
            End = end,
            Start = start,
            ReadEnd = readEnd,
            BlockCount = (readEnd - start + _blockSize - 1) / _blockSize,
            Destination = (nint)destination,
            Staged = staged,
            Token = cancellationToken,
        };

        int workers = (int)Math.Min(_readsInFlight, job.BlockCount);

        Task[]? others = workers > 1 ? new Task[workers - 1] : null;
        for (int w = 1; w < workers; w++)
        {
            int worker = w;
            others![w - 1] = Task.Run(() => Work(worker, job), CancellationToken.None);
        }

        Work(0, job);
        if (others is not null)
        {
            Task.WaitAll(others, CancellationToken.None);
        }

        job.Failure?.Throw();
        if (job.Cancelled)
        {
            cancellationToken.ThrowIfCancellationRequested();
        }

        if (job.Errno != 0)
        {
            if (staged && IsRefusal(job.Errno))
            {
                FallBack(job.Errno, job.ErrorOffset);
                read = 0;
                return false;
            }

            ThrowHelper.ThrowReadFailed(Path, job.ErrorOffset, Math.Min(_blockSize, job.ReadEnd - job.ErrorOffset), job.Errno);
        }

        read = Math.Max(0, Math.Min(end, Interlocked.Read(ref job.ShortEnd)) - offset);
        return true;
    }

    /// <summary>One worker: takes the next block until none is left, reads it, and copies out the requested part.</summary>
    private void Work(int worker, ReadJob job)
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

                // A block wholly inside the range whose place in the destination is aligned for Direct I/O is read
                // straight there: no staging, no copy (the usual case for page-aligned engine buffers).
                bool copy = job.Staged
                    && (blockStart < job.Offset || blockStart + want > job.End || ((nint)direct & (_memoryAlignment - 1)) != 0);
                int got;
                int errno;
                if (copy)
                {
                    staging = staging != null ? staging : _buffers.Get(worker);
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

    /// <summary>The shared state of one read's workers.</summary>
    private sealed class ReadJob
    {
        internal long NextBlock = -1;
        internal long ShortEnd = long.MaxValue;
        internal int Errno;
        internal long ErrorOffset;
        internal volatile bool Stop;
        internal volatile bool Cancelled;
        internal ExceptionDispatchInfo? Failure;

        internal required long Offset { get; init; }

        internal required long End { get; init; }

        internal required long Start { get; init; }

        internal required long ReadEnd { get; init; }

        internal required long BlockCount { get; init; }

        internal required nint Destination { get; init; }

        internal required bool Staged { get; init; }

        internal required CancellationToken Token { get; init; }

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
