using System.Globalization;
using System.Diagnostics.CodeAnalysis;
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
/// <remarks>
/// The kernel hides a file's page cache from a process that could not open the file for writing (neither its owner,
/// nor root with its capabilities, nor a writer: a service user reading root-owned 0644 weights, or any file on a
/// read-only file system): cachestat refuses with EPERM, and mincore answers "resident" for every page of such a
/// mapping (mm/mincore.c, can_do_mincore; a side channel closed in Linux 5.0). Those pieces are counted from this process's own page tables instead
/// (<see cref="ProcPagemap"/>): a page mapped here is resident, and the rest is unknown, never resident.
/// </remarks>
internal sealed unsafe class FileCacheProbe : IDisposable
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
    /// /proc/self/maps covering them, see <see cref="ProcMaps.ReadFor"/>). One piece per mapping, however many regions
    /// lie in it. Nothing is opened here: each file is opened when a count first needs it, and closed when the count
    /// moves to another file, so the probe holds one descriptor at a time however many files it covers.
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
    /// The residency count every feature uses (a run's plan before its sweep and after it, <see cref="Residency.Measure(ReadOnlySpan{PrefaultRegion})"/>,
    /// <see cref="Residency.MeasureEach(ReadOnlySpan{PrefaultRegion})"/>, the lock's RAM gate): a probe of the files
    /// mapped under <paramref name="ranges"/> in <paramref name="maps"/> (empty: mincore alone), each range counted
    /// with <see cref="TryCountResident"/>, its count written to <paramref name="each"/> when that is given (one entry
    /// per range), and the sum of the bytes counted resident returned. A range that cannot be counted (not mapped, a
    /// query refused) adds nothing; nothing is counted where <see cref="Residency.IsSupported"/> is false. Bytes whose
    /// residency the kernel would not tell (see the remarks on the class) are not resident: they are in
    /// <paramref name="unknownBytes"/>.
    /// </summary>
    /// <remarks>
    /// The probe holds one descriptor at a time and closes it before this returns, so a run opens its files twice,
    /// before and after its sweep, and holds none through it. Held through the sweep, 300 files under
    /// <c>ulimit -n 256</c> left the tool no descriptor: the huge-page check and the runtime's own assembly loads failed
    /// with EMFILE and <c>touch</c> exited 1 without a word; a background prefault would take them from the engine's
    /// own init work. Held one per file for the count alone, <c>lock -r</c> over 61,000 files under
    /// <c>ulimit -n 20000</c> took every descriptor while it counted, and a thread the runtime started meanwhile (it
    /// needs a pipe) failed and aborted the tool ("Out of memory.", exit 134). Opening again also checks again that
    /// each path still names the mapped file. Arrays, not spans: this runs at an engine's first call, where converting
    /// the library's struct arrays to spans runs framework generics over them that no ReadyToRun image can hold.
    /// </remarks>
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
    /// Resident bytes of [start, end), and those whose residency the kernel would not tell (<paramref name="unknownBytes"/>,
    /// not counted resident); false with the call that failed (mincore's ENOMEM when the range is not mapped;
    /// QueryWorkingSetEx's Win32 error on Windows). On Windows the bytes in this
    /// process's working set (<see cref="WorkingSet"/>), and an unmapped range counts as not resident rather than
    /// failing: the touch sweep's VirtualQuery check reports it.
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

    /// <summary>
    /// True when the kernel hides the page cache of <paramref name="handle"/>'s file from this process (see the remarks
    /// on the class): cachestat refuses it with EPERM (Linux 6.5+, where the kernel has its permission check); where
    /// the kernel has no cachestat, told from who may write the file as the kernel's check is (the owner, root, or a
    /// writer by faccessat: the mode bits, ACLs and a read-only mount all count; faccessat also refuses a read-only bind
    /// mount, which the kernel's check allows, so such a file counts unknown there, never resident). An EPERM may also be a seccomp
    /// filter's (a container profile that denies cachestat), which <see cref="FilterRefusesCachestat"/> tells apart:
    /// cachestat is then not used again, and the file is judged as on a kernel without cachestat.
    /// </summary>
    [SupportedOSPlatform("linux")]
    internal static bool HidesCache(SafeFileHandle handle, string path)
    {
        if (Volatile.Read(ref s_unsupported) == 0)
        {
            Interop.Libc.CachestatRange range = new() { Offset = 0, Length = (ulong)Pages.Size };
            Interop.Libc.Cachestat stat;
            if (Interop.Libc.SyscallCachestat(Interop.Libc.SYS_cachestat, handle, &range, &stat, 0) == 0)
            {
                return false;
            }

            int errno = Marshal.GetLastPInvokeError();
            if (errno == Interop.LinuxConstants.EPERM)
            {
                if (!FilterRefusesCachestat())
                {
                    return true; // the kernel's own check: it hides this file's cache from this process
                }

                Volatile.Write(ref s_unsupported, 1);
            }

            if (errno == Interop.LinuxConstants.ENOSYS)
            {
                Volatile.Write(ref s_unsupported, 1);
            }
        }

        return !MayWrite(handle, path);
    }

    /// <summary>
    /// Whether a seccomp filter refuses cachestat, asked once: cachestat on no descriptor at all. The kernel checks the
    /// descriptor before its permission check and answers EBADF; a filter that denies the call answers before the
    /// kernel sees it (EPERM). Not told from who may write the file: root without CAP_FOWNER and CAP_DAC_OVERRIDE (a
    /// container with its capabilities dropped, a user namespace) gets the kernel's own EPERM for another user's file.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private static bool FilterRefusesCachestat()
    {
        int known = Volatile.Read(ref s_filterRefuses);
        if (known == 0)
        {
            using var none = new SafeFileHandle(-1, ownsHandle: false);
            Interop.Libc.CachestatRange range = new() { Offset = 0, Length = (ulong)Pages.Size };
            Interop.Libc.Cachestat stat;
            bool refused = Interop.Libc.SyscallCachestat(Interop.Libc.SYS_cachestat, none, &range, &stat, 0) != 0
                && Marshal.GetLastPInvokeError() == Interop.LinuxConstants.EPERM;
            known = refused ? 1 : 2;
            Volatile.Write(ref s_filterRefuses, known);
        }

        return known == 1;
    }

    /// <summary>
    /// Whether this process could open the file for writing, as the kernel decides whether mincore may tell
    /// (inode_owner_or_capable, then a write permission check): its owner, a thread with CAP_FOWNER (root's, unless a
    /// container or a user namespace dropped it: root alone is not enough), or a writer by faccessat (which counts
    /// CAP_DAC_OVERRIDE).
    /// </summary>
    [SupportedOSPlatform("linux")]
    private static bool MayWrite(SafeFileHandle handle, string path)
    {
        uint euid = Interop.Libc.Geteuid();
        return OwnedBy(handle, euid) || ThreadCapabilities.Has(ThreadCapabilities.Fowner)
            || Interop.Libc.Faccessat(Interop.LinuxConstants.AT_FDCWD, path, Interop.LinuxConstants.W_OK, Interop.LinuxConstants.AT_EACCESS) == 0;
    }

    /// <summary>Whether <paramref name="euid"/> owns the file; false where statx cannot tell (a C library without it: glibc before 2.28, musl before 1.2.5).</summary>
    [SupportedOSPlatform("linux")]
    private static bool OwnedBy(SafeFileHandle handle, uint euid)
    {
        try
        {
            Interop.Libc.StatxBuffer stat;
            return Interop.Libc.Statx(handle, string.Empty, Interop.LinuxConstants.AT_EMPTY_PATH, Interop.LinuxConstants.STATX_UID, &stat) == 0 && stat.Uid == euid;
        }
        catch (EntryPointNotFoundException)
        {
            return false;
        }
    }

    /// <summary>
    /// After mincore counted [start, end): every piece of a file that hides its cache was counted resident whole (that
    /// is what mincore answers there), so each is taken out again and counted from the page tables.
    /// </summary>
    private void CountHiddenAgain(nint start, nint end, ref long residentBytes, ref long unknownBytes)
    {
        for (int i = AddressRanges.FirstEndingAfter<FilePiece>(_pieces, start); i < _pieces.Length && (nuint)_pieces[i].Start < (nuint)end; i++)
        {
            FilePiece p = _pieces[i];
            if (OperatingSystem.IsLinux() && TryOpen(p.File, out _, out bool hidesCache) && hidesCache)
            {
                nint from = (nuint)p.Start > (nuint)start ? p.Start : start;
                nint to = (nuint)p.End < (nuint)end ? p.End : end;
                residentBytes -= to - from;
                CountMapped(from, to, ref residentBytes, ref unknownBytes);
            }
        }
    }

    /// <summary>Counts [start, end) of a piece that hides its cache: pages this process maps are resident, the rest unknown.</summary>
    private void CountMapped(nint start, nint end, ref long residentBytes, ref long unknownBytes)
    {
        long present = 0;
        bool known = OperatingSystem.IsLinux() && (_mappedPages ??= new ProcPagemap()).TryCountPresent(start, end, out present);
        residentBytes += known ? present : 0;
        unknownBytes += (end - start) - (known ? present : 0);
    }

    /// <summary>
    /// Opens the path when it still names the mapped regular file (same inode); null otherwise. A mapped device (a
    /// private view of /dev/zero, a driver's memory) is never opened: its page cache says nothing of what is mapped,
    /// and opening a device can have effects of its own. Shared with <see cref="FileStaging"/>.
    /// </summary>
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
            // engine's first run more than the open. Without blocking: a FIFO renamed over the path after the check
            // above would otherwise hold the open until a writer came, and the sweep's thread, Completion and Dispose
            // with it; the inode check below turns away any other file.
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
    /// <paramref name="hidesCache"/>: the kernel hides the file's page cache from this process (see the remarks on the class).
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
