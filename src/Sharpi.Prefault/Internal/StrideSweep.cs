using System.Runtime.InteropServices;

namespace Sharpi.Prefault;

/// <summary>
/// The parallel sweep: the regions cut into page-aligned chunks, handed out through one atomic counter to a few
/// threads, each chunk either populated (MADV_POPULATE_READ) or touched one byte per page. No locks, and no
/// allocation per chunk or page; failures are recorded per region with interlocked writes.
/// </summary>
internal sealed unsafe class StrideSweep
{
    private const int MaxRetries = 8;

    private readonly MergedRegion[] _regions;
    private readonly long[] _firstChunk; // _firstChunk[i] is the index of region i's first chunk; the last entry is the total
    private readonly long _chunkSize;
    private readonly bool _populate;
    private readonly CancellationToken _token;
    private readonly int[] _errno;
    private readonly long[] _failedBytes;
    private readonly nint _page = Environment.SystemPageSize;
    private long _nextChunk = -1;
    private long _bytesDone;
    private int _sink;

    internal StrideSweep(MergedRegion[] regions, long chunkSize, bool populate, CancellationToken token)
    {
        _regions = regions;
        _chunkSize = chunkSize;
        _populate = populate;
        _token = token;
        _errno = new int[regions.Length];
        _failedBytes = new long[regions.Length];
        _firstChunk = new long[regions.Length + 1];
        long chunks = 0;
        for (int i = 0; i < regions.Length; i++)
        {
            _firstChunk[i] = chunks;
            nint alignedStart = regions[i].Start & ~(_page - 1);
            chunks += (regions[i].End - alignedStart + chunkSize - 1) / chunkSize;
        }

        _firstChunk[regions.Length] = chunks;
        BytesTotal = RegionSet.TotalBytes(regions);
    }

    internal long BytesTotal { get; }

    internal long BytesDone => Volatile.Read(ref _bytesDone);

    internal long ChunkCount => _firstChunk[^1];

    /// <summary>
    /// Sweeps on <paramref name="threads"/> threads (the calling thread is one of them) and returns when every
    /// worker has stopped, so nothing touches the regions after this returns.
    /// </summary>
    internal void Execute(int threads, ThreadPriority priority, ProgressReporter? progress)
    {
        threads = (int)Math.Clamp(Math.Min(threads, ChunkCount), 1, int.MaxValue);
        Thread[] helpers = new Thread[threads - 1];
        for (int i = 0; i < helpers.Length; i++)
        {
            helpers[i] = new Thread(static state => ((StrideSweep)state!).Work(null), maxStackSize: 256 * 1024)
            {
                IsBackground = true,
                Priority = priority,
                Name = "Sharpi.Prefault sweep",
            };
            helpers[i].Start(this);
        }

        Work(progress);
        foreach (Thread helper in helpers)
        {
            // The calling thread keeps reporting progress while the others finish their last chunks.
            while (!helper.Join(100))
            {
                progress?.Report(BytesDone);
            }
        }

        progress?.Complete(BytesDone);
    }

    /// <summary>The failures, one per region that had any, after <see cref="Execute"/> returned.</summary>
    internal void CollectFailures(List<RegionFailure> failures)
    {
        for (int i = 0; i < _regions.Length; i++)
        {
            if (_errno[i] != 0)
            {
                MergedRegion r = _regions[i];
                failures.Add(new RegionFailure(r.DisplayName, r.Start, _failedBytes[i], _errno[i], DescribePopulateError(_errno[i])));
            }
        }
    }

    private void Work(ProgressReporter? progress)
    {
        int region = 0;
        byte sink = 0;
        long total = ChunkCount;
        while (!_token.IsCancellationRequested)
        {
            long chunk = Interlocked.Increment(ref _nextChunk);
            if (chunk >= total)
            {
                break;
            }

            // Chunks are handed out in order, so the region only moves forward: no search, no allocation.
            while (_firstChunk[region + 1] <= chunk)
            {
                region++;
            }

            MergedRegion r = _regions[region];
            nint alignedStart = r.Start & ~(_page - 1);
            nint chunkStart = alignedStart + (nint)((chunk - _firstChunk[region]) * _chunkSize);
            nint start = chunkStart > r.Start ? chunkStart : r.Start;
            nint end = chunkStart + (nint)_chunkSize < r.End ? chunkStart + (nint)_chunkSize : r.End;

            if (_populate)
            {
                if (!Populate(start, end, region))
                {
                    continue;
                }
            }
            else
            {
                sink ^= Touch((byte*)start, (byte*)end, _page);
            }

            Interlocked.Add(ref _bytesDone, end - start);

            // Only the calling thread has a reporter; it throttles to ten reports a second.
            progress?.Report(BytesDone);
        }

        // Keeps the touched bytes observable so the JIT cannot drop the reads.
        Interlocked.Add(ref _sink, sink);
    }

    private bool Populate(nint start, nint end, int region)
    {
        nint alignedStart = start & ~(_page - 1);
        nint alignedEnd = (end + _page - 1) & ~(_page - 1);
        for (int attempt = 0; ; attempt++)
        {
            if (Interop.Libc.Madvise((void*)alignedStart, (nuint)(alignedEnd - alignedStart), Interop.LinuxConstants.MADV_POPULATE_READ) == 0)
            {
                return true;
            }

            int errno = Marshal.GetLastPInvokeError();
            if ((errno == Interop.LinuxConstants.EINTR || errno == Interop.LinuxConstants.EAGAIN) && attempt < MaxRetries)
            {
                continue;
            }

            Interlocked.CompareExchange(ref _errno[region], errno, 0);
            Interlocked.Add(ref _failedBytes[region], end - start);
            return false;
        }
    }

    /// <summary>Reads one byte per page from <paramref name="start"/> and the last byte: every page of the range faults in once.</summary>
    private static byte Touch(byte* start, byte* end, nint page)
    {
        byte acc = 0;
        for (byte* p = start; p < end; p += page)
        {
            acc ^= *p;
        }

        return (byte)(acc ^ *(end - 1));
    }

    internal static string DescribePopulateError(int errno) => errno switch
    {
        Interop.LinuxConstants.EFAULT => $"pages past the end of the mapped file (truncated?) or unreadable; populate stopped there instead of a fatal SIGBUS ({Errno.Describe(errno)})",
        Interop.LinuxConstants.ENOMEM => $"not mapped ({Errno.Describe(errno)})",
        Interop.LinuxConstants.EINVAL => $"this mapping cannot be populated (device or PFN mapping, or locked against it) ({Errno.Describe(errno)})",
        Interop.LinuxConstants.EHWPOISON => $"hardware memory error in the range ({Errno.Describe(errno)})",
        Interop.LinuxConstants.EPERM => $"not permitted ({Errno.Describe(errno)})",
        _ => $"madvise(MADV_POPULATE_READ) failed ({Errno.Describe(errno)})",
    };
}
