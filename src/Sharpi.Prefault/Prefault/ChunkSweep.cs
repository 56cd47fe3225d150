using System.Diagnostics;

namespace Sharpi.Prefault;

/// <summary>
/// Populates a chunk (then samples it where slow) or touches it, recording failures per region. Runs on every sweep
/// thread at once: no locks, no allocation per chunk or page.
/// </summary>
internal sealed unsafe class ChunkSweep : IChunkSweep
{
    private const int MaxRetries = 8;

    private readonly MergedRegion[] _regions;
    private readonly bool _populate;
    private volatile int _touchAfter;          // a TouchAfter
    private volatile FileStaging? _staging;
    private readonly FileReadTouch? _fileRead;
    private readonly MappingTouch? _throughMapping;
    private readonly ProcMapEntry[] _maps;
    private readonly int[] _failed; // 1 once a failure is recorded; its setter writes the three below
    private readonly PlatformError[] _error;
    private readonly nint[] _failedAt;
    private readonly string?[] _why; // null: told from the errno
    private readonly long[] _failedBytes;
    private readonly nint _page = Pages.Size;
    private long _spansSampled;
    private long _spansTouched;
    private long _sampledPages;
    private long _sampledTicks;
    private int _sink;

    internal ChunkSweep(MergedRegion[] regions, SweepMechanism mechanism)
    {
        _regions = regions;
        _populate = mechanism.Populates;
        _touchAfter = (int)mechanism.TouchAfter;
        _staging = mechanism.Staging;
        _fileRead = mechanism.FileRead;
        _throughMapping = OperatingSystem.IsLinux() ? mechanism.ThroughMapping : null;
        _maps = mechanism.Maps ?? [];
        _failed = new int[regions.Length];
        _error = new PlatformError[regions.Length];
        _failedAt = new nint[regions.Length];
        _why = new string?[regions.Length];
        _failedBytes = new long[regions.Length];
    }

    /// <summary>The trial's choice, set before the rest of the set is handed out.</summary>
    internal void Use(PopulateMechanism mechanism, TouchAfter touch)
    {
        _staging = mechanism.Staging;
        _touchAfter = (int)touch;
    }

    /// <summary>Times a unit's populate and two accesses to each page; failures are recorded as a chunk's are.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    internal MechanismTrial.UnitCost SweepTrialUnit(PopulateMechanism mechanism, int region, nint start, nint end)
    {
        long started = Stopwatch.GetTimestamp();
        mechanism.Staging.StageUnit(start, end);
        nint populated = Populate(start, end, region);
        long afterPopulate = Stopwatch.GetTimestamp();
        if (populated == start)
        {
            return default;
        }

        byte sink = 0;
        nint touched = TouchAll(start, populated, region, ref sink);
        long afterFirst = Stopwatch.GetTimestamp();
        if (touched == populated)
        {
            _ = TouchPages(start, touched, _page, ref sink, out _);
        }

        long afterSecond = Stopwatch.GetTimestamp();
        if (sink != 0)
        {
            Interlocked.Add(ref _sink, sink);
        }

        return new MechanismTrial.UnitCost(touched - start, afterPopulate - started, afterFirst - afterPopulate, afterSecond - afterFirst);
    }

    /// <summary>A slower sample reads its span whole; tests set 0 or infinity.</summary>
    internal double SlowPageNanoseconds { get; init; } = TouchAfterPopulate.SlowPageNanoseconds;

    internal long SpansSampled => Volatile.Read(ref _spansSampled);

    internal long SpansTouched => Volatile.Read(ref _spansTouched);

    internal double SampledNanosecondsPerPage
    {
        get
        {
            long pages = Volatile.Read(ref _sampledPages);
            return pages == 0 ? 0 : Volatile.Read(ref _sampledTicks) * (1e9 / Stopwatch.Frequency) / pages;
        }
    }

    /// <summary>Returns the bytes before the first page that could not come in; the rest is a failure.</summary>
    public long SweepChunk(int region, nint start, nint end) => SweepChunk(region, start, end, readAhead: false);

    /// <inheritdoc cref="SweepChunk(int, nint, nint)"/>
    public long SweepChunk(int region, nint start, nint end, bool readAhead)
    {
        if (_populate && OperatingSystem.IsLinux())
        {
            // Unless the reader asked for them already.
            if (!readAhead)
            {
                _staging?.Read(start, end);
            }

            nint populated = Populate(start, end, region);
            if (populated == start)
            {
                return 0;
            }

            end = populated;
        }

        // Never a plain load: a concurrent truncation would make it a fatal SIGBUS.
        byte sink = 0;
        nint touched = !_populate ? TouchAll(start, end, region, ref sink)
            : (TouchAfter)_touchAfter switch
            {
                TouchAfter.All => TouchAll(start, end, region, ref sink),
                TouchAfter.Sampled => TouchWhereFirstAccessIsSlow(start, end, region, ref sink),
                _ => end,
            };

        // So the JIT cannot drop the reads.
        if (sink != 0)
        {
            Interlocked.Add(ref _sink, sink);
        }

        return touched - start;
    }

    /// <summary>A background reader asks for the chunk's file bytes; nothing for a touch.</summary>
    public void ReadAhead(int region, nint start, nint end)
    {
        if (_populate && OperatingSystem.IsLinux())
        {
            _staging?.ReadAhead(start, end);
        }
    }

    /// <summary>One a region that had any; call once no chunk is being swept.</summary>
    internal void CollectFailures(List<RegionFailure> failures)
    {
        for (int i = 0; i < _regions.Length; i++)
        {
            if (_failed[i] != 0)
            {
                MergedRegion r = _regions[i];
                failures.Add(new RegionFailure(r.DisplayName, r.Start, _failedBytes[i], _error[i], _why[i] ?? SweepFailureText.Describe(_error[i], _failedAt[i], _maps)));
            }
        }
    }

    private nint TouchAll(nint start, nint end, int region, ref byte sink)
    {
        string? why = null;
        PlatformError error;
        nint touched = _fileRead is not null && OperatingSystem.IsLinux()
            ? _fileRead.Touch(start, end, out error, out why)
            : TouchPages(start, end, _page, ref sink, out error);
        if (touched != end)
        {
            Fail(region, error, touched, end - touched, why);
        }

        return touched;
    }

    /// <summary>Reads each 2 MiB span whole where its timed sample was slow; returns where the chunk stopped.</summary>
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
            nint sampled = TouchPages(span, spanEnd, stride, ref sink, out _);
            long elapsed = Stopwatch.GetTimestamp() - started;
            if (sampled != spanEnd)
            {
                // A page between samples may have failed first: find it.
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
                nint read = TouchPages(span, spanEnd, _page, ref sink, out PlatformError error);
                if (read != spanEnd)
                {
                    Fail(region, error, read, end - read);
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

    /// <summary>Through the engine's mapping where it may, else the kernel; never a load.</summary>
    private nint TouchPages(nint start, nint end, nint stride, ref byte sink, out PlatformError error) =>
        _throughMapping is not null && OperatingSystem.IsLinux()
            ? _throughMapping.Touch(start, end, stride, ref sink, out error)
            : SafeTouch.Touch(start, end, stride, ref sink, out error);

    /// <summary>Returns the end, or the first page that cannot be populated (past a file's end), found by halving.</summary>
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
            // [good, bad) holds the boundary.
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

        Fail(region, PlatformError.FromErrno(PopulateSupport.Call, errno), reached, end - reached);
        return reached;
    }

    /// <summary>Retried on EINTR/EAGAIN; 0 or the errno.</summary>
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

    private void Fail(int region, PlatformError error, nint at, long bytes, string? why = null)
    {
        // A region keeps its first failure.
        if (Interlocked.CompareExchange(ref _failed[region], 1, 0) == 0)
        {
            _error[region] = error;
            _failedAt[region] = at;
            _why[region] = why;
        }

        Interlocked.Add(ref _failedBytes[region], bytes);
    }

    /// <summary>A failure in words, with the call and its errno.</summary>
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
