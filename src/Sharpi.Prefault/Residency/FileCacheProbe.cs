using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

/// <summary>
/// Counts the resident bytes of mapped ranges. For ranges of file mappings on Linux 6.5+ it asks
/// <c>cachestat(2)</c> about the file itself, which walks the page cache a folio at a time: microseconds for a
/// 2 GiB file cached in 2 MiB folios. <c>mincore</c> on a fresh mapping looks up every 4 KiB page instead
/// (~10-20 ms per GiB here), more than the populate it precedes. Anything else (anonymous memory, a file that is
/// gone or replaced, an older kernel, a refusal) falls back to mincore, which also finds unmapped ranges.
/// </summary>
internal sealed unsafe class FileCacheProbe : IDisposable
{
    private static int s_unsupported; // 1 once the kernel answered ENOSYS

    private readonly FilePiece[] _pieces;
    private readonly List<SafeFileHandle> _handles;

    // The last cachestat asked and its answer: tiny neighbour regions (tensors of a few bytes) share their pages, and
    // a million of them would otherwise ask about the same page a hundred times over.
    private SafeFileHandle? _lastHandle;
    private Interop.Libc.CachestatRange _lastRange;
    private ulong _lastCached;

    private FileCacheProbe(FilePiece[] pieces, List<SafeFileHandle> handles)
    {
        _pieces = pieces;
        _handles = handles;
    }

    /// <summary>
    /// A probe for <paramref name="regions"/>: the file mappings under them in <paramref name="maps"/> (a snapshot of
    /// /proc/self/maps covering them, see <see cref="ProcMaps.ReadFor"/>), each file opened once. One piece per
    /// mapping, however many regions lie in it.
    /// </summary>
    internal static FileCacheProbe Create(ReadOnlySpan<MergedRegion> regions, ProcMapEntry[] maps)
    {
        if (!OperatingSystem.IsLinux() || maps.Length == 0 || Volatile.Read(ref s_unsupported) != 0)
        {
            return new FileCacheProbe([], []);
        }

        bool[] used = new bool[maps.Length];
        foreach (MergedRegion r in regions)
        {
            foreach (MapPiece piece in ProcMaps.Pieces(maps, r.Start, r.End))
            {
                if (!piece.IsGap)
                {
                    used[piece.Index] = true;
                }
            }
        }

        var opened = new Dictionary<string, SafeFileHandle?>(StringComparer.Ordinal);
        var pieces = new ArrayBuilder<FilePiece>();
        var handles = new List<SafeFileHandle>();
        for (int i = 0; i < maps.Length; i++)
        {
            if (!used[i] || maps[i] is not { IsFileBacked: true, IsDeleted: false } m)
            {
                continue;
            }

            if (!opened.TryGetValue(m.Path, out SafeFileHandle? handle))
            {
                handle = OpenIfSameFile(m.Path, m.Inode);
                opened[m.Path] = handle;
                if (handle is not null)
                {
                    handles.Add(handle);
                }
            }

            if (handle is not null)
            {
                pieces.Add(new FilePiece(m.Start, m.End, handle, m.Offset)); // in address order, as the maps are
            }
        }

        return new FileCacheProbe(pieces.ToArray(), handles);
    }

    /// <summary>
    /// The residency count every feature uses (a run's plan before its sweep and after it, <see cref="Residency.Measure(ReadOnlySpan{PrefaultRegion})"/>,
    /// <see cref="Residency.MeasureEach(ReadOnlySpan{PrefaultRegion})"/>, the lock's RAM gate): a probe of the files
    /// mapped under <paramref name="ranges"/> in <paramref name="maps"/> (empty: mincore alone), each range counted
    /// with <see cref="TryCountResident"/>, its count written to <paramref name="each"/> when that is given (one entry
    /// per range), and the sum of the bytes counted returned. A range that cannot be counted (not mapped, a query
    /// refused) adds nothing; nothing is counted where <see cref="Residency.IsSupported"/> is false.
    /// </summary>
    /// <remarks>
    /// The probe's descriptors (one per file) are closed before this returns, so a run opens its files twice, before
    /// and after its sweep, and holds none through it. Held through the sweep, 300 files under <c>ulimit -n 256</c>
    /// left the tool no descriptor: the huge-page check and the runtime's own assembly loads failed with EMFILE and
    /// <c>touch</c> exited 1 without a word; a background prefault would take them from the engine's own init work.
    /// Opening again also checks again that each path still names the mapped file.
    /// </remarks>
    internal static long CountResident(ReadOnlySpan<MergedRegion> ranges, ProcMapEntry[] maps, Span<RangeResidency> each = default)
    {
        if (!Residency.IsSupported)
        {
            each.Clear();
            return 0;
        }

        using FileCacheProbe probe = Create(ranges, maps);
        long total = 0;
        for (int i = 0; i < ranges.Length; i++)
        {
            bool counted = probe.TryCountResident(ranges[i].Start, ranges[i].End, out long bytes, out PlatformError error);
            total += counted ? bytes : 0;
            if (!each.IsEmpty)
            {
                each[i] = new RangeResidency(counted ? bytes : 0, counted, error);
            }
        }

        return total;
    }

    /// <summary>
    /// Resident bytes of [start, end); false with the call that failed (mincore's ENOMEM when the range is not mapped;
    /// QueryWorkingSetEx's Win32 error on Windows). On Windows the bytes in this
    /// process's working set (<see cref="WorkingSet"/>), and an unmapped range counts as not resident rather than
    /// failing: the touch sweep's VirtualQuery check reports it.
    /// </summary>
    [SupportedOSPlatform("linux")]
    [SupportedOSPlatform("macos")]
    [SupportedOSPlatform("freebsd")]
    [SupportedOSPlatform("windows")]
    internal bool TryCountResident(nint start, nint end, out long residentBytes, out PlatformError error)
    {
        error = PlatformError.None;
        if (OperatingSystem.IsWindows())
        {
            if (WorkingSet.TryCountResident(start, end, out residentBytes, out int win32))
            {
                return true;
            }

            error = PlatformError.FromWin32("QueryWorkingSetEx", win32);
            return false;
        }

        if (TryCachestat(start, end, out residentBytes))
        {
            return true;
        }

        if (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS() || OperatingSystem.IsFreeBSD())
        {
            if (Mincore.TryCountResident(start, end, out residentBytes, out int errno))
            {
                return true;
            }

            error = PlatformError.FromErrno("mincore", errno);
            return false;
        }

        // Not reached: the attributes above list every platform; the guard says so to the platform analyzer.
        return false;
    }

    public void Dispose()
    {
        foreach (SafeFileHandle handle in _handles)
        {
            handle.Dispose();
        }
    }

    /// <summary>cachestat calls this probe made (the tests read it: neighbours sharing a page ask once).</summary>
    internal long CachestatCalls { get; private set; }

    internal bool TryCachestat(nint start, nint end, out long residentBytes)
    {
        residentBytes = 0;
        // The pieces are empty off Linux (see Create); the check says so to the platform analyzer.
        if (!OperatingSystem.IsLinux() || _pieces.Length == 0 || Volatile.Read(ref s_unsupported) != 0)
        {
            return false;
        }

        // The pieces are disjoint and sorted; the range must be covered without a gap.
        int i = AddressRanges.FirstEndingAfter<FilePiece>(_pieces, start);
        nint at = start;
        long total = 0;
        while ((nuint)at < (nuint)end)
        {
            if (i >= _pieces.Length || (nuint)_pieces[i].Start > (nuint)at)
            {
                return false;
            }

            FilePiece p = _pieces[i];
            nint stop = (nuint)p.End < (nuint)end ? p.End : end;
            long offset = p.FileOffset + (at - p.Start);
            long alignedOffset = Pages.Floor(offset);
            long alignedEnd = Pages.Ceiling(offset + (stop - at));
            Interop.Libc.CachestatRange range = new() { Offset = (ulong)alignedOffset, Length = (ulong)(alignedEnd - alignedOffset) };
            if (!ReferenceEquals(p.Handle, _lastHandle) || range.Offset != _lastRange.Offset || range.Length != _lastRange.Length)
            {
                Interop.Libc.Cachestat stat;
                if (Interop.Libc.SyscallCachestat(Interop.Libc.SYS_cachestat, p.Handle, &range, &stat, 0) != 0)
                {
                    if (Marshal.GetLastPInvokeError() == Interop.LinuxConstants.ENOSYS)
                    {
                        Volatile.Write(ref s_unsupported, 1);
                    }

                    _lastHandle = null;
                    return false;
                }

                (_lastHandle, _lastRange, _lastCached) = (p.Handle, range, stat.Cached);
                CachestatCalls++;
            }

            // Whole pages are counted; a range that starts or ends inside a page cannot claim more than its bytes.
            total += Math.Min((long)_lastCached * Pages.Size, stop - at);
            at = stop;
            i++;
        }

        residentBytes = total;
        return true;
    }

    /// <summary>
    /// Opens the path when it still names the mapped regular file (same inode); null otherwise. A mapped device (a
    /// private view of /dev/zero, a driver's memory) is never opened: its page cache says nothing of what is mapped,
    /// and opening a device can have effects of its own. Shared with <see cref="FileStaging"/>.
    /// </summary>
    [SupportedOSPlatform("linux")]
    internal static SafeFileHandle? OpenIfSameFile(string path, long inode)
    {
        try
        {
            if (FileStatus.Of(path).Kind != FileKind.Regular)
            {
                return null;
            }

            SafeFileHandle handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            Interop.Libc.StatxBuffer stat;
            if (Interop.Libc.Statx(handle, string.Empty, Interop.LinuxConstants.AT_EMPTY_PATH, Interop.LinuxConstants.STATX_INO, &stat) == 0
                && (long)stat.Inode == inode)
            {
                return handle;
            }

            handle.Dispose();
            return null;
        }
        catch (IOException)
        {
            return null;
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }

    private readonly record struct FilePiece(nint Start, nint End, SafeFileHandle Handle, long FileOffset) : IAddressRange;
}

