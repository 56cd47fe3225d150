using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

/// <summary>
/// The library's own read-only, huge-page-advised views of the files under an engine's writable file mappings. The
/// sweep populates a view's range first, so the page cache fills in 2 MiB folios at the device's pace, and then
/// populates the engine's own range, which now costs minor faults only.
/// </summary>
/// <remarks>
/// <para>
/// Why: ONNX Runtime maps each external-data initializer itself, <c>PROT_READ | PROT_WRITE, MAP_PRIVATE</c>, one
/// mapping per initializer. The huge-page advice (see <see cref="HugePageAdvice"/>) is never given to a writable
/// mapping (it stays on the engine's mapping, where a later copy-on-write would allocate huge anonymous pages), so a
/// populate of those mappings reads the file through the device's read-ahead window: on a cold 1 GiB file (2 cores,
/// ext4, kernel 6.18, free page reporting suspended, 8 threads, medians of 5) 0.494 s at read_ahead_kb 128 and 0.413 s
/// at 8192, against the O_DIRECT limit's 0.28 s. Populating a view of the same file ranges first, then the engine's
/// mappings, took 0.286 s and 0.284 s; warming the cache with parallel 32 MiB <c>pread</c>s instead took 0.367 s and
/// 0.473 s, and with <c>POSIX_FADV_WILLNEED</c> 0.516 s and 0.456 s.
/// </para>
/// <para>
/// The engine's mappings are only read: never written, re-protected, advised or split. A view is never read by a
/// load, only populated, so a file that shrinks while the sweep runs makes the populate fail softly (EFAULT), never a
/// SIGBUS; the engine's own range is then populated as before and its failure reported. A file that cannot be opened
/// again by its path as the same file (deleted, renamed over, no permission), or a view the kernel refuses, leaves
/// that mapping to the plain populate.
/// </para>
/// </remarks>
internal sealed unsafe class StagingViews : IDisposable
{
    private static readonly StagingViews s_none = new([], [], [], []);

    private readonly ProcMapEntry[] _maps;
    private readonly nint[] _delta;      // per mapping: view address minus engine address; 0 where the mapping has no view
    private readonly nint[] _stagedEnd;  // per mapping: the engine address where its view's file bytes end
    private readonly List<(nint Address, nuint Length)> _views;

    private StagingViews(ProcMapEntry[] maps, nint[] delta, nint[] stagedEnd, List<(nint Address, nuint Length)> views)
    {
        _maps = maps;
        _delta = delta;
        _stagedEnd = stagedEnd;
        _views = views;
        foreach ((_, nuint length) in views)
        {
            Bytes += (long)length;
        }
    }

    /// <summary>Bytes of the views mapped (address space, not memory): 0 when nothing is staged.</summary>
    internal long Bytes { get; }

    /// <summary>Files with a view.</summary>
    internal int FileCount => _views.Count;

    /// <summary>True when a view covers any of the mappings.</summary>
    internal bool IsEmpty => _views.Count == 0;

    /// <summary>
    /// Views for the writable file mappings in <paramref name="maps"/> that the regions overlap, one view per file over
    /// the file ranges those mappings map, advised <c>MADV_HUGEPAGE</c>. Empty where THP is off or nothing qualifies.
    /// </summary>
    [SupportedOSPlatform("linux")]
    internal static StagingViews Create(MergedRegion[] regions, ProcMapEntry[] maps)
    {
        if (maps.Length == 0 || !HugePageAdvice.IsThpEnabled(MemoryFigures.TryReadFile(HugePageAdvice.EnabledPath)))
        {
            return s_none;
        }

        // Per file (by path and inode): the lowest and highest file offsets of the qualifying mappings under the regions.
        var spans = new Dictionary<(string Path, long Inode), (long Start, long End)>();
        bool[] wanted = new bool[maps.Length];
        foreach (MergedRegion r in regions)
        {
            foreach (MapPiece piece in ProcMaps.Pieces(maps, r.Start, r.End))
            {
                if (piece.IsGap || wanted[piece.Index] || !IsStaged(maps[piece.Index]))
                {
                    continue;
                }

                ProcMapEntry m = maps[piece.Index];
                wanted[piece.Index] = true;
                long end = m.Offset + (m.End - m.Start);
                spans[(m.Path, m.Inode)] = spans.TryGetValue((m.Path, m.Inode), out (long Start, long End) s)
                    ? (Math.Min(s.Start, m.Offset), Math.Max(s.End, end))
                    : (m.Offset, end);
            }
        }

        var delta = new nint[maps.Length];
        var stagedEnd = new nint[maps.Length];
        var views = new List<(nint Address, nuint Length)>(spans.Count);
        foreach (((string path, long inode), (long start, long end)) in spans)
        {
            if (!TryMapView(path, inode, start, end, out nint view, out long viewEnd))
            {
                continue;
            }

            views.Add((view, (nuint)(viewEnd - start)));
            for (int i = 0; i < maps.Length; i++)
            {
                ProcMapEntry m = maps[i];
                if (wanted[i] && m.Inode == inode && string.Equals(m.Path, path, StringComparison.Ordinal) && m.Offset < viewEnd)
                {
                    delta[i] = view + (nint)(m.Offset - start) - m.Start;
                    stagedEnd[i] = m.Start + (nint)Math.Min(m.End - m.Start, viewEnd - m.Offset);
                }
            }
        }

        return views.Count == 0 ? s_none : new StagingViews(maps, delta, stagedEnd, views);
    }

    /// <summary>
    /// Populates the views behind [start, end) of the engine's mappings, so the page cache holds those file bytes
    /// before the engine's range is populated. Failures are left to the populate of the engine's range, which reports
    /// them. Allocates nothing; safe on any thread.
    /// </summary>
    [SupportedOSPlatform("linux")]
    internal void Populate(nint start, nint end)
    {
        if (_views.Count == 0)
        {
            return;
        }

        for (int i = AddressRanges.FirstEndingAfter<ProcMapEntry>(_maps, start); i < _maps.Length && (nuint)_maps[i].Start < (nuint)end; i++)
        {
            if (_delta[i] == 0)
            {
                continue;
            }

            nint from = (nuint)_maps[i].Start > (nuint)start ? _maps[i].Start : start;
            nint to = (nuint)_stagedEnd[i] < (nuint)end ? _stagedEnd[i] : end;
            if ((nuint)from < (nuint)to)
            {
                nint viewStart = Pages.Floor(from + _delta[i]);
                nint viewEnd = Pages.Ceiling(to + _delta[i]);
                _ = Interop.Libc.Madvise((void*)viewStart, (nuint)(viewEnd - viewStart), Interop.LinuxConstants.MADV_POPULATE_READ);
            }
        }
    }

    public void Dispose()
    {
        if (!OperatingSystem.IsLinux())
        {
            return;
        }

        foreach ((nint address, nuint length) in _views)
        {
            _ = Interop.Libc.Munmap((void*)address, length);
        }

        _views.Clear();
    }

    /// <summary>
    /// A mapping that gets a view: file-backed, readable and writable (the huge-page advice covers the read-only ones),
    /// with its file still in place.
    /// </summary>
    internal static bool IsStaged(in ProcMapEntry m) => m is { IsFileBacked: true, IsDeleted: false, Readable: true, Writable: true };

    /// <summary>
    /// Maps [start, end) of the file read-only and shared, cut at the file's end, advised MADV_HUGEPAGE; false when the
    /// path no longer names the mapped file, the file ends before <paramref name="start"/>, or the kernel refuses.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private static bool TryMapView(string path, long inode, long start, long end, out nint view, out long viewEnd)
    {
        view = 0;
        viewEnd = 0;
        // Only regular files: a mapped device (a private view of /dev/zero, a driver's memory) is neither opened nor viewed.
        try
        {
            if (FileStatus.Of(path).Kind != FileKind.Regular)
            {
                return false;
            }
        }
        catch (IOException)
        {
            return false;
        }

        using SafeFileHandle? handle = FileCacheProbe.OpenIfSameFile(path, inode);
        if (handle is null)
        {
            return false;
        }

        long length;
        try
        {
            length = RandomAccess.GetLength(handle);
        }
        catch (IOException)
        {
            return false;
        }

        viewEnd = Math.Min(end, Pages.Ceiling(length));
        if (viewEnd <= start)
        {
            return false;
        }

        void* mapped = Interop.Libc.Mmap(null, (nuint)(viewEnd - start), Interop.LinuxConstants.PROT_READ, Interop.LinuxConstants.MAP_SHARED, handle, start);
        if (mapped == (void*)-1)
        {
            return false;
        }

        view = (nint)mapped;
        _ = Interop.Libc.Madvise(mapped, (nuint)(viewEnd - start), Interop.LinuxConstants.MADV_HUGEPAGE);
        return true;
    }
}
