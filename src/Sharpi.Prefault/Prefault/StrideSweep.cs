using System.Diagnostics;
using System.Runtime.InteropServices;

namespace Sharpi.Prefault;

/// <summary>
/// The parallel sweep. The regions are cut into page-aligned chunks, and every thread takes the next chunk in the
/// order given from one shared counter, so regions finish in that order (what <see cref="PrefaultHandle.WhenReady"/>
/// reports). Each chunk is populated (MADV_POPULATE_READ) and sampled, and touched through the kernel where a sample was slow; or only touched.
/// No locks, and no allocation per chunk or page; failures are recorded per region with interlocked writes.
/// </summary>
/// <remarks>
/// Why one shared order: with the huge-page advice on the mappings (see <see cref="HugePageAdvice"/>) each fault
/// reads a 2 MiB folio whatever the file's read-ahead state, and threads taking turns on neighbouring chunks no
/// longer cost throughput. Measured on a cold 2 GiB file (2 cores, ext4, kernel 6.18, read_ahead_kb 128, 8 threads,
/// bench <c>--strategies prefault --repeat 5</c>): one contiguous slice per thread 0.649-0.654 s, one shared order
/// 0.651-0.690 s (minimum and median of two runs), the same within this machine's noise. After a populate, a 2 MiB
/// span is read whole only where a timed sample of its pages shows that the first access still costs a fault the
/// guest does not see (<see cref="TouchAfterPopulate"/>).
/// </remarks>
internal sealed unsafe class StrideSweep
{
    private const int MaxRetries = 8;

    private readonly MergedRegion[] _regions;
    private readonly long[] _firstChunk; // _firstChunk[i] is the index of region i's first chunk; the last entry is the total
    private readonly long _chunkSize;
    private readonly bool _populate;
    private readonly bool _touchAfterPopulate;
    private readonly FileStaging? _staging;
    private readonly CancellationToken _token;
    private readonly int[] _failed; // per region: 1 once a failure is recorded; the thread that sets it writes _error
    private readonly PlatformError[] _error; // per region: the first call that failed in it
    private readonly long[] _failedBytes;
    private readonly long[] _chunksLeft; // per region: chunks not yet swept; the one that ends it reports the region done
    private readonly Action<int>? _regionDone;
    private readonly nint _page = Pages.Size;
    private long _nextChunk = -1;
    private long _spansSampled;
    private long _spansTouched;
    private long _sampledPages;
    private long _sampledTicks;
    private long _bytesDone;
    private int _sink;

    /// <param name="regions">The regions, in the order they should become resident.</param>
    /// <param name="chunkSize">Bytes per chunk (whole pages).</param>
    /// <param name="populate">Populate each chunk before touching it (else touch only).</param>
    /// <param name="touchAfterPopulate">Sample each chunk after populating it, and touch the spans whose sample was slow (see <see cref="TouchAfterPopulate"/>).</param>
    /// <param name="regionDone">Called (on a sweep thread) with a region's index once its last chunk is swept, failed or not.</param>
    /// <param name="token">Stops the sweep between chunks.</param>
    /// <param name="staging">What brings a chunk's file bytes in before its populate (see <see cref="FileStaging"/>); null for nothing.</param>
    internal StrideSweep(MergedRegion[] regions, long chunkSize, bool populate, bool touchAfterPopulate, Action<int>? regionDone, CancellationToken token,
        FileStaging? staging = null)
    {
        _staging = populate ? staging : null;
        _regions = regions;
        _chunkSize = chunkSize;
        _populate = populate;
        _touchAfterPopulate = touchAfterPopulate && SafeTouch.IsKernelChecked;
        _regionDone = regionDone;
        _token = token;
        _failed = new int[regions.Length];
        _error = new PlatformError[regions.Length];
        _failedBytes = new long[regions.Length];
        _chunksLeft = new long[regions.Length];
        _firstChunk = new long[regions.Length + 1];
        long chunks = 0;
        for (int i = 0; i < regions.Length; i++)
        {
            _firstChunk[i] = chunks;
            nint alignedStart = Pages.Floor(regions[i].Start);
            _chunksLeft[i] = (regions[i].End - alignedStart + chunkSize - 1) / chunkSize;
            chunks += _chunksLeft[i];
        }

        _firstChunk[regions.Length] = chunks;
        BytesTotal = RegionSet.TotalBytes(regions);
    }

    internal long BytesTotal { get; }

    /// <summary>The sampled read time a page above which a populated span is read whole (tests set 0 or infinity).</summary>
    internal double SlowPageNanoseconds { get; init; } = TouchAfterPopulate.SlowPageNanoseconds;

    internal long BytesDone => Volatile.Read(ref _bytesDone);

    internal long ChunkCount => _firstChunk[^1];

    /// <summary>2 MiB spans sampled after their populate (<see cref="TouchAfterPopulate.SpanBytes"/>).</summary>
    internal long SpansSampled => Volatile.Read(ref _spansSampled);

    /// <summary>Spans whose sample was slow, so every page of them was read.</summary>
    internal long SpansTouched => Volatile.Read(ref _spansTouched);

    /// <summary>Pages read as samples after populating, and the time those reads took, in nanoseconds a page.</summary>
    internal double SampledNanosecondsPerPage
    {
        get
        {
            long pages = Volatile.Read(ref _sampledPages);
            return pages == 0 ? 0 : Volatile.Read(ref _sampledTicks) * (1e9 / Stopwatch.Frequency) / pages;
        }
    }

    /// <summary>
    /// Sweeps on up to <paramref name="maxThreads"/> threads, no more than there are chunks (the calling thread is one
    /// of them), and returns when every worker has stopped, so nothing touches the regions after this returns.
    /// </summary>
    /// <returns>The number of threads that swept.</returns>
    internal int Execute(int maxThreads, ThreadPriority priority, ProgressReporter? progress)
    {
        int threads = (int)Math.Clamp(Math.Min(maxThreads, ChunkCount), 1, int.MaxValue);

        var helpers = new List<Thread>(threads - 1);
        for (int i = 1; i < threads; i++)
        {
            var helper = new Thread(() =>
            {
                WorkerPriority.ApplyToCurrentThread(priority);
                Work(null);
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
                // No more threads (a container's pids.max, say): sweep with those started, and join them all below,
                // so nothing touches the regions after this returns.
                break;
            }

            helpers.Add(helper);
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
        return helpers.Count + 1;
    }

    /// <summary>The failures, one per region that had any, after <see cref="Execute"/> returned.</summary>
    internal void CollectFailures(List<RegionFailure> failures)
    {
        for (int i = 0; i < _regions.Length; i++)
        {
            if (_failed[i] != 0)
            {
                MergedRegion r = _regions[i];
                failures.Add(new RegionFailure(r.DisplayName, r.Start, _failedBytes[i], _error[i], DescribeError(_error[i])));
            }
        }
    }

    private void Work(ProgressReporter? progress)
    {
        byte sink = 0;
        long chunk;
        while (!_token.IsCancellationRequested && (chunk = Interlocked.Increment(ref _nextChunk)) < ChunkCount)
        {
            SweepChunk(chunk, ref sink);

            // Only the calling thread has a reporter; it throttles to ten reports a second.
            progress?.Report(BytesDone);
        }

        // Keeps the touched bytes observable so the JIT cannot drop the reads.
        Interlocked.Add(ref _sink, sink);
    }

    private void SweepChunk(long chunk, ref byte sink)
    {
        int region = RegionOf(chunk);
        SweepChunkOf(region, chunk, ref sink);
        if (Interlocked.Decrement(ref _chunksLeft[region]) == 0)
        {
            _regionDone?.Invoke(region);
        }
    }

    private void SweepChunkOf(int region, long chunk, ref byte sink)
    {
        MergedRegion r = _regions[region];
        nint alignedStart = Pages.Floor(r.Start);
        nint chunkStart = alignedStart + (nint)((chunk - _firstChunk[region]) * _chunkSize);
        nint start = chunkStart > r.Start ? chunkStart : r.Start;
        nint end = chunkStart + (nint)_chunkSize < r.End ? chunkStart + (nint)_chunkSize : r.End;

        if (_populate && OperatingSystem.IsLinux())
        {
            // A staging view's range, or exactly the chunk's file bytes, come in first (see FileStaging).
            _staging?.Read(start, end);
            nint populated = Populate(start, end, region);
            if (populated == start)
            {
                return;
            }

            // Part of the chunk came in before a page that cannot (past a file's end): sweep and count that part.
            end = populated;
        }

        // After a populate the touch is never a plain load, which a concurrent truncation could turn into a fatal
        // SIGBUS, and reads every page only where a sample of them shows that the first access still costs a fault.
        nint touched = !_populate ? TouchAll(start, end, region, ref sink)
            : _touchAfterPopulate ? TouchWhereFirstAccessIsSlow(start, end, region, ref sink)
            : end;
        Interlocked.Add(ref _bytesDone, touched - start);
    }

    private nint TouchAll(nint start, nint end, int region, ref byte sink)
    {
        nint touched = SafeTouch.Touch(start, end, ref sink, out PlatformError error);
        if (touched != end)
        {
            Fail(region, error, end - touched);
        }

        return touched;
    }

    /// <summary>
    /// Judges a chunk just populated one 2 MiB span at a time (spans aligned to 2 MiB of address, as the page cache's
    /// large folios and a host's huge pages are): reads one page in <see cref="TouchAfterPopulate.SamplePages"/> of the span and times it,
    /// and reads every page of the span only where the sample ran slower than <see cref="SlowPageNanoseconds"/> a page
    /// (see <see cref="TouchAfterPopulate"/>). Returns where the chunk stopped, as a full touch would.
    /// </summary>
    private nint TouchWhereFirstAccessIsSlow(nint start, nint end, int region, ref byte sink)
    {
        nint stride = TouchAfterPopulate.SamplePages * _page;
        long spans = 0, spansTouched = 0, pages = 0, ticks = 0;
        nint touched = end;
        for (nint span = start; (nuint)span < (nuint)end;)
        {
            nint spanEnd = (span & ~(TouchAfterPopulate.SpanBytes - 1)) + TouchAfterPopulate.SpanBytes;
            spanEnd = (nuint)spanEnd < (nuint)end ? spanEnd : end;
            long started = Stopwatch.GetTimestamp();
            nint sampled = SafeTouch.Touch(span, spanEnd, stride, ref sink, out _);
            long elapsed = Stopwatch.GetTimestamp() - started;
            if (sampled != spanEnd)
            {
                // A page between two samples may be the first that cannot be read (a file truncated just now):
                // read them all from here to find it, and fail the rest of the chunk from there.
                touched = TouchAll(span, end, region, ref sink);
                break;
            }

            long sampledPages = (spanEnd - Pages.Floor(span) + stride - 1) / stride;
            spans++;
            pages += sampledPages;
            ticks += elapsed;
            if (TouchAfterPopulate.IsSlow(elapsed, sampledPages, SlowPageNanoseconds))
            {
                spansTouched++;
                nint read = SafeTouch.Touch(span, spanEnd, ref sink, out PlatformError error);
                if (read != spanEnd)
                {
                    Fail(region, error, end - read);
                    touched = read;
                    break;
                }
            }

            span = spanEnd;
        }

        Interlocked.Add(ref _spansSampled, spans);
        Interlocked.Add(ref _spansTouched, spansTouched);
        Interlocked.Add(ref _sampledPages, pages);
        Interlocked.Add(ref _sampledTicks, ticks);
        return touched;
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

    /// <summary>
    /// Populates [start, end) and returns where it stopped: <paramref name="end"/>, or the first page that cannot be
    /// populated (EFAULT: past a file's end; found by halving, each call over pages already in costing a page-table
    /// walk), the rest failed. Transient errors are retried.
    /// </summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private nint Populate(nint start, nint end, int region)
    {
        nint alignedStart = Pages.Floor(start);
        nint alignedEnd = Pages.Ceiling(end);
        int errno = PopulateRange(alignedStart, alignedEnd);
        if (errno == 0)
        {
            return end;
        }

        nint reached = start;
        if (errno == Interop.LinuxConstants.EFAULT)
        {
            // The pages before the failing one are in; find it: [good, bad) holds the boundary.
            nint good = alignedStart, bad = alignedEnd;
            while (bad - good > _page)
            {
                nint mid = Pages.Floor(good + ((bad - good) / 2));
                if (PopulateRange(good, mid) == 0)
                {
                    good = mid;
                }
                else
                {
                    bad = mid;
                }
            }

            reached = (nuint)good > (nuint)start ? good : start;
        }

        Fail(region, PlatformError.FromErrno(PopulateSupport.Call, errno), end - reached);
        return reached;
    }

    /// <summary>MADV_POPULATE_READ over page-aligned [start, end), retried on EINTR/EAGAIN; 0 or the errno.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static int PopulateRange(nint start, nint end)
    {
        for (int attempt = 0; ; attempt++)
        {
            if (Interop.Libc.Madvise((void*)start, (nuint)(end - start), Interop.LinuxConstants.MADV_POPULATE_READ) == 0)
            {
                return 0;
            }

            int errno = Marshal.GetLastPInvokeError();
            if ((errno != Interop.LinuxConstants.EINTR && errno != Interop.LinuxConstants.EAGAIN) || attempt >= MaxRetries)
            {
                return errno;
            }
        }
    }

    private void Fail(int region, PlatformError error, long bytes)
    {
        // A region keeps its first failure; it is read only after every worker has stopped.
        if (Interlocked.CompareExchange(ref _failed[region], 1, 0) == 0)
        {
            _error[region] = error;
        }

        Interlocked.Add(ref _failedBytes[region], bytes);
    }

    /// <summary>What a failed populate or touch means, with the call and its error (the errno values are the running platform's).</summary>
    internal static string DescribeError(PlatformError error)
    {
        int efault = OperatingSystem.IsMacOS() ? Interop.OSXConstants.EFAULT : Interop.LinuxConstants.EFAULT;
        if (error.Kind != PlatformErrorKind.Errno || (!OperatingSystem.IsLinux() && error.Code != efault))
        {
            return $"{error.Call} failed ({error.Describe()})";
        }

        return error.Code switch
        {
            _ when error.Code == efault => $"pages past the end of the mapped file (truncated?) or unreadable; the sweep stopped there instead of a fatal SIGBUS ({error})",
            Interop.LinuxConstants.ENOMEM => $"not mapped ({error})",
            Interop.LinuxConstants.EINVAL when error.Call == PopulateSupport.Call => $"this mapping cannot be populated (device or PFN mapping, or locked against it) ({error})",
            Interop.LinuxConstants.EHWPOISON => $"hardware memory error in the range ({error})",
            Interop.LinuxConstants.EPERM => $"not permitted ({error})",
            _ => $"{error.Call} failed ({error.Describe()})",
        };
    }
}
