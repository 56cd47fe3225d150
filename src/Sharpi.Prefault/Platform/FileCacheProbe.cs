using System.Globalization;
using System.Diagnostics.CodeAnalysis;

namespace Sharpi.Prefault;

/// <summary>Counts resident bytes of mapped ranges: cachestat per file on Linux 6.5+, else mincore.</summary>
internal sealed unsafe partial class FileCacheProbe : IDisposable
{
    /// <summary>True where mapped memory's residency can be counted.</summary>
    [SupportedOSPlatformGuard("linux")]
    [SupportedOSPlatformGuard("macos")]
    [SupportedOSPlatformGuard("freebsd")]
    [SupportedOSPlatformGuard("windows")]
    internal static bool IsSupported =>
        OperatingSystem.IsLinux() || OperatingSystem.IsMacOS() || OperatingSystem.IsFreeBSD() || OperatingSystem.IsWindows();

    private static int s_unsupported; // 1: cachestat answered ENOSYS or is filtered
    private static int s_filterRefuses; // 0 not asked, 1 seccomp refuses cachestat, 2 not

    private readonly MappedRange[] _pieces;
    private readonly MappedFile[] _files;
    private ProcPagemap? _mappedPages;

    // The one file open at a time (-1: none; null handle: not the mapped file).
    private int _openFile = -1;
    private SafeFileHandle? _openHandle;
    private bool _openHidesCache;

    // The last cachestat: tiny neighbour regions share pages.
    private int _lastFile = -1;
    private Interop.Libc.CachestatRange _lastRange;
    private ulong _lastCached;

    private FileCacheProbe(MappedRange[] pieces, MappedFile[] files)
    {
        _pieces = pieces;
        _files = files;
    }

    /// <summary>A probe of the file mappings in <paramref name="maps"/> under <paramref name="regions"/>; opens nothing yet.</summary>
    internal static FileCacheProbe Create(MergedRegion[] regions, ProcMapEntry[] maps)
    {
        // Pieces even without cachestat: they say which files hide their cache from mincore.
        if (!OperatingSystem.IsLinux() || maps.Length == 0)
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

        // String keys, not tuples: precompiled (docs/why/platform.md).
        var files = new Dictionary<string, int>(StringComparer.Ordinal);
        var keys = new ArrayBuilder<MappedFile>();
        var pieces = new ArrayBuilder<MappedRange>();
        for (int i = 0; i < maps.Length; i++)
        {
            if (!used[i] || maps[i] is not { IsFileBacked: true, IsDeleted: false } m)
            {
                continue;
            }

            string key = FileKey(m.Path, m.Inode);
            if (!files.TryGetValue(key, out int file))
            {
                file = files.Count;
                files.Add(key, file);
                keys.Add(new MappedFile(m.Path, m.Inode));
            }

            pieces.Add(new MappedRange(m.Start, m.End, file, m.Offset)); // in address order
        }

        return new FileCacheProbe(pieces.ToArray(), keys.ToArray());
    }

    /// <summary>
    /// Resident bytes of <paramref name="ranges"/>, each range's count into <paramref name="each"/> when given; an
    /// uncountable range adds nothing, bytes the kernel hides go to <paramref name="unknownBytes"/>.
    /// </summary>
    internal static long CountResident(MergedRegion[] ranges, ProcMapEntry[] maps, out long unknownBytes, RangeResidency[]? each = null)
    {
        unknownBytes = 0;
        if (!IsSupported)
        {
            if (each is not null)
            {
                Array.Clear(each);
            }

            return 0;
        }

        using FileCacheProbe probe = Create(ranges, maps);
        long total = 0;
        for (int i = 0; i < ranges.Length; i++)
        {
            bool counted = probe.TryCountResident(ranges[i].Start, ranges[i].End, out long bytes, out long unknown, out PlatformError error);
            total += counted ? bytes : 0;
            unknownBytes += counted ? unknown : 0;
            if (each is not null)
            {
                each[i] = new RangeResidency(counted ? bytes : 0, counted, error) { UnknownBytes = counted ? unknown : 0 };
            }
        }

        return total;
    }

    /// <inheritdoc cref="CountResident(MergedRegion[], ProcMapEntry[], out long, RangeResidency[])"/>
    internal static long CountResident(MergedRegion[] ranges, ProcMapEntry[] maps, RangeResidency[]? each = null)
        => CountResident(ranges, maps, out _, each);

    /// <summary>Resident and untold bytes of [start, end); false with the failed call (ENOMEM: not mapped).</summary>
    [SupportedOSPlatform("linux")]
    [SupportedOSPlatform("macos")]
    [SupportedOSPlatform("freebsd")]
    [SupportedOSPlatform("windows")]
    internal bool TryCountResident(nint start, nint end, out long residentBytes, out long unknownBytes, out PlatformError error)
    {
        error = PlatformError.None;
        unknownBytes = 0;
        if (OperatingSystem.IsWindows())
        {
            if (WorkingSet.TryCountResident(start, end, out residentBytes, out int win32))
            {
                return true;
            }

            error = PlatformError.FromWin32("QueryWorkingSetEx", win32);
            return false;
        }

        if (TryCachestat(start, end, out residentBytes, out unknownBytes))
        {
            return true;
        }

        if (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS() || OperatingSystem.IsFreeBSD())
        {
            if (Mincore.TryCountResident(start, end, out residentBytes, out int errno))
            {
                // mincore claims every page of a hidden file: recount those from the page tables.
                CountHiddenAgain(start, end, ref residentBytes, ref unknownBytes);
                return true;
            }

            error = PlatformError.FromErrno("mincore", errno);
            return false;
        }

        // Not reached; for the platform analyzer.
        return false;
    }

    public void Dispose()
    {
        _openHandle?.Dispose();
        _openHandle = null;
        _openFile = -1;
        _mappedPages?.Dispose();
    }

    /// <summary>cachestat calls made (tests: neighbours sharing a page ask once).</summary>
    internal long CachestatCalls { get; private set; }

    internal bool TryCachestat(nint start, nint end, out long residentBytes, out long unknownBytes)
    {
        residentBytes = 0;
        unknownBytes = 0;
        // Empty off Linux; the check is for the platform analyzer.
        if (!OperatingSystem.IsLinux() || _pieces.Length == 0 || Volatile.Read(ref s_unsupported) != 0)
        {
            return false;
        }

        // Pieces are disjoint and sorted; the range must be covered without a gap.
        int i = AddressRanges.FirstEndingAfter<MappedRange>(_pieces, start);
        nint at = start;
        long total = 0, unknown = 0;
        while ((nuint)at < (nuint)end)
        {
            if (i >= _pieces.Length || (nuint)_pieces[i].Start > (nuint)at)
            {
                return false;
            }

            MappedRange p = _pieces[i];
            if (!TryOpen(p.File, out SafeFileHandle? handle, out bool hidesCache))
            {
                _lastFile = -1;
                return false;
            }

            nint stop = (nuint)p.End < (nuint)end ? p.End : end;
            if (hidesCache)
            {
                CountMapped(at, stop, ref total, ref unknown);
                at = stop;
                i++;
                continue;
            }

            long offset = p.FileOffset + (at - p.Start);
            long alignedOffset = Pages.Floor(offset);
            long alignedEnd = Pages.Ceiling(offset + (stop - at));
            Interop.Libc.CachestatRange range = new() { Offset = (ulong)alignedOffset, Length = (ulong)(alignedEnd - alignedOffset) };
            if (p.File != _lastFile || range.Offset != _lastRange.Offset || range.Length != _lastRange.Length)
            {
                Interop.Libc.Cachestat stat;
                if (Interop.Libc.SyscallCachestat(Interop.Libc.SYS_cachestat, handle, &range, &stat, 0) != 0)
                {
                    if (Marshal.GetLastPInvokeError() == Interop.LinuxConstants.ENOSYS)
                    {
                        Volatile.Write(ref s_unsupported, 1);
                    }

                    _lastFile = -1;
                    return false;
                }

                (_lastFile, _lastRange, _lastCached) = (p.File, range, stat.Cached);
                CachestatCalls++;
            }

            // Whole pages counted; a range inside a page claims no more than its bytes.
            total += Math.Min((long)_lastCached * Pages.Size, stop - at);
            at = stop;
            i++;
        }

        residentBytes = total;
        unknownBytes = unknown;
        return true;
    }

    /// <summary>The path opened where it still names the mapped regular file (same inode); null otherwise.</summary>
    [SupportedOSPlatform("linux")]
    internal static SafeFileHandle? OpenIfSameFile(string path, long inode) => OpenIfSameFile(path, inode, out _);

    /// <summary>As <see cref="OpenIfSameFile(string, long)"/>, with the file's length (0 where none).</summary>
    [SupportedOSPlatform("linux")]
    internal static SafeFileHandle? OpenIfSameFile(string path, long inode, out long length)
    {
        length = 0;
        try
        {
            if (FileStatus.Of(path).Kind != FileKind.Regular)
            {
                return null;
            }

            // open(2), not File.OpenHandle: its share-mode lock costs a first run more than the open.
            if (FileOpener.TryOpenRead(path, out _) is not SafeFileHandle handle)
            {
                return null;
            }

            FileStatus opened = FileStatus.Of(handle);
            if (opened.HasIdentity && (long)opened.Inode == inode)
            {
                length = opened.Length;
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

    /// <summary>The file at index <paramref name="file"/>, opened in place of the last; false where its path no longer names it.</summary>
    [SupportedOSPlatform("linux")]
    private bool TryOpen(int file, [NotNullWhen(true)] out SafeFileHandle? handle, out bool hidesCache)
    {
        if (file != _openFile)
        {
            _openHandle?.Dispose();
            (string path, long inode) = _files[file];
            _openHandle = OpenIfSameFile(path, inode);
            _openHidesCache = _openHandle is not null && HidesCache(_openHandle, path);
            _openFile = file;
        }

        handle = _openHandle;
        hidesCache = _openHidesCache;
        return handle is not null;
    }

    /// <summary>A key for a mapped file's path and inode (one path can show two files: a mount over its folder).</summary>
    internal static string FileKey(string path, long inode) =>
        string.Concat(inode.ToString(CultureInfo.InvariantCulture), "\0", path);

    /// <summary>A mapped file as /proc/self/maps names it: its path and inode.</summary>
    private readonly record struct MappedFile(string Path, long Inode);
}
