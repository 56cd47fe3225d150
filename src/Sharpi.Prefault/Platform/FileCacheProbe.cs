using System.Globalization;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

/// <summary>
/// Counts the resident bytes of mapped ranges: cachestat on the mapped file where Linux 6.5+ has it (a folio at a time,
/// not a page), else mincore; a file whose cache the kernel hides is counted from this process's page tables.
/// </summary>
internal sealed unsafe partial class FileCacheProbe : IDisposable
{
    /// <summary>
    /// True where residency of mapped memory can be counted: mincore (Linux, macOS, FreeBSD) or QueryWorkingSetEx
    /// (Windows, this process's working set).
    /// </summary>
    [SupportedOSPlatformGuard("linux")]
    [SupportedOSPlatformGuard("macos")]
    [SupportedOSPlatformGuard("freebsd")]
    [SupportedOSPlatformGuard("windows")]
    internal static bool IsSupported =>
        OperatingSystem.IsLinux() || OperatingSystem.IsMacOS() || OperatingSystem.IsFreeBSD() || OperatingSystem.IsWindows();

    private static int s_unsupported; // 1 once the kernel answered ENOSYS, or a seccomp filter refused cachestat
    private static int s_filterRefuses; // whether a seccomp filter refuses cachestat: 0 not asked yet, 1 yes, 2 no

    private readonly FilePiece[] _pieces;
    private readonly FileIdentity[] _files;
    private ProcPagemap? _mappedPages;

    // The one file open at a time: its index in _files (-1: none yet), its handle (null: it could not be opened as the
    // mapped file) and whether it hides its cache. Pieces come in address order, so a file's pieces mostly follow each other.
    private int _openFile = -1;
    private SafeFileHandle? _openHandle;
    private bool _openHidesCache;

    // The last cachestat asked and its answer: tiny neighbour regions (tensors of a few bytes) share their pages, and
    // a million of them would otherwise ask about the same page a hundred times over.
    private int _lastFile = -1;
    private Interop.Libc.CachestatRange _lastRange;
    private ulong _lastCached;

    private FileCacheProbe(FilePiece[] pieces, FileIdentity[] files)
    {
        _pieces = pieces;
        _files = files;
    }

    /// <summary>
    /// A probe for <paramref name="regions"/>: the file mappings under them in <paramref name="maps"/> (a snapshot of
    /// /proc/self/maps covering them, see <see cref="ProcMaps.ReadFor"/>).
    /// </summary>
    internal static FileCacheProbe Create(MergedRegion[] regions, ProcMapEntry[] maps)
    {
        // Pieces even without cachestat: mincore then counts, and the pieces say which files hide their cache from it.
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

        // Keyed by FileKey's string, not a (path, inode) tuple: the framework's shared code for string keys is precompiled,
        // while a dictionary over a tuple with a long in it is compiled by the JIT at an engine's first call (27 methods).
        var files = new Dictionary<string, int>(StringComparer.Ordinal);
        var keys = new ArrayBuilder<FileIdentity>();
        var pieces = new ArrayBuilder<FilePiece>();
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
                keys.Add(new FileIdentity(m.Path, m.Inode));
            }

            pieces.Add(new FilePiece(m.Start, m.End, file, m.Offset)); // in address order, as the maps are
        }

        return new FileCacheProbe(pieces.ToArray(), keys.ToArray());
    }

    /// <summary>
    /// The residency count every feature uses (a run's plan before its sweep and after it,
    /// <see cref="Residency.Measure(ReadOnlySpan{PrefaultRegion})"/>,
    /// <see cref="Residency.MeasureEach(ReadOnlySpan{PrefaultRegion})"/>, the lock's RAM gate): a probe of the files
    /// mapped under <paramref name="ranges"/> in <paramref name="maps"/> (empty: mincore alone), each range counted
    /// with <see cref="TryCountResident"/>, its count written to <paramref name="each"/> when that is given (one entry
    /// per range), and the sum of the bytes counted resident returned.
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

    /// <summary>
    /// Resident bytes of [start, end), and those whose residency the kernel would not tell
    /// (<paramref name="unknownBytes"/>, not counted resident); false with the call that failed (mincore's ENOMEM when
    /// the range is not mapped; QueryWorkingSetEx's Win32 error on Windows).
    /// </summary>
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
                // mincore said "resident" for every page of a file that hides its cache: count those from the page tables.
                CountHiddenAgain(start, end, ref residentBytes, ref unknownBytes);
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
        _openHandle?.Dispose();
        _openHandle = null;
        _openFile = -1;
        _mappedPages?.Dispose();
    }

    /// <summary>cachestat calls this probe made (the tests read it: neighbours sharing a page ask once).</summary>
    internal long CachestatCalls { get; private set; }

    internal bool TryCachestat(nint start, nint end, out long residentBytes, out long unknownBytes)
    {
        residentBytes = 0;
        unknownBytes = 0;
        // The pieces are empty off Linux (see Create); the check says so to the platform analyzer.
        if (!OperatingSystem.IsLinux() || _pieces.Length == 0 || Volatile.Read(ref s_unsupported) != 0)
        {
            return false;
        }

        // The pieces are disjoint and sorted; the range must be covered without a gap.
        int i = AddressRanges.FirstEndingAfter<FilePiece>(_pieces, start);
        nint at = start;
        long total = 0, unknown = 0;
        while ((nuint)at < (nuint)end)
        {
            if (i >= _pieces.Length || (nuint)_pieces[i].Start > (nuint)at)
            {
                return false;
            }

            FilePiece p = _pieces[i];
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

            // Whole pages are counted; a range that starts or ends inside a page cannot claim more than its bytes.
            total += Math.Min((long)_lastCached * Pages.Size, stop - at);
            at = stop;
            i++;
        }

        residentBytes = total;
        unknownBytes = unknown;
        return true;
    }

    /// <summary>Opens the path when it still names the mapped regular file (same inode); null otherwise.</summary>
    [SupportedOSPlatform("linux")]
    internal static SafeFileHandle? OpenIfSameFile(string path, long inode) => OpenIfSameFile(path, inode, out _);

    /// <inheritdoc cref="OpenIfSameFile(string, long)"/>
    /// <param name="path">The mapped file's path.</param>
    /// <param name="inode">The mapped file's inode.</param>
    /// <param name="length">The opened file's length now (0 where it is not opened).</param>
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

            // FileOpener's open(2), not File.OpenHandle: the framework's handle takes a share-mode lock and costs an
            // engine's first run more than the open.
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

    /// <summary>
    /// The file of <paramref name="file"/> (an index into the files), open: the one already open, or opened now in its
    /// place (the one before is closed). False where the path no longer names the mapped regular file.
    /// </summary>
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

    // File: the mapped file's index in the probe's files, opened when a count needs it.
    private readonly record struct FilePiece(nint Start, nint End, int File, long FileOffset) : IAddressRange;

    /// <summary>
    /// One string for a mapped file's path and inode, for the sets and maps that tell files apart: two files can show one
    /// path in /proc/self/maps (a file system mounted over the folder of a mapped file).
    /// </summary>
    internal static string FileKey(string path, long inode) =>
        string.Concat(inode.ToString(CultureInfo.InvariantCulture), "\0", path);

    /// <summary>A mapped file as /proc/self/maps names it: its path and inode.</summary>
    private readonly record struct FileIdentity(string Path, long Inode);
}
