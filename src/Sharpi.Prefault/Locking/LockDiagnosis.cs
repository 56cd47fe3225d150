using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>Why the OS refused a lock, and what to do, for the lease and the log.</summary>
internal sealed class LockDiagnosis
{
    private static long s_mapsReads;

    private readonly Dictionary<string, long?> _fileLengths = new(StringComparer.Ordinal);
    private ProcMapEntry[]? _maps;
    private bool? _limitApplies;
    private MemlockLimit? _limit;
    private bool _limitRead;

    /// <summary>Snapshots of /proc/self/maps taken by all diagnoses so far (tests prove one per call).</summary>
    internal static long MapsReads => Interlocked.Read(ref s_mapsReads);

    /// <summary>Why locking [start, end) (page-aligned) failed with <paramref name="failed"/>, and what to do.</summary>
    internal string Describe(PlatformError failed, nint start, nint end)
    {
        long bytes = end - start;
        if (!failed.IsError)
        {
            return "locking memory is not supported on this platform; the pages stay mapped, unlocked";
        }

        if (OperatingSystem.IsWindows())
        {
            return LockLimit.WindowsMessage(failed, bytes);
        }

        int error = failed.Code;
        string call = failed.Call;
        string text = failed.Describe();
        if (OperatingSystem.IsLinux())
        {
            return DescribeLinux(error, start, end, call, text);
        }

        if (!OperatingSystem.IsMacOS())
        {
            return "locking memory is not supported on this platform; the pages stay mapped, unlocked";
        }

        // macOS: ENOMEM also means "not mapped"; mincore tells the two apart without touching a page.
        if (error == Interop.OSXConstants.ENOMEM && !Mincore.TryCountResident(start, end, out _, out _))
        {
            return LockLimit.UnixMessage(LockRefusal.NotMapped, call, text, bytes, null, linux: false);
        }

        LockRefusal kind = error == Interop.OSXConstants.ENOMEM || error == Interop.OSXConstants.EAGAIN ? LockRefusal.OverLimit
            : error == Interop.OSXConstants.EPERM ? LockRefusal.NotPermitted
            : LockRefusal.Other;
        return LockLimit.UnixMessage(kind, call, text, bytes, Limit(), linux: false);
    }

    [SupportedOSPlatform("linux")]
    private string DescribeLinux(int error, nint start, nint end, string call, string text)
    {
        long bytes = end - start;
        if (error == Interop.LinuxConstants.EPERM)
        {
            return LockLimit.UnixMessage(LockRefusal.NotPermitted, call, text, bytes, Limit(), linux: true);
        }

        // mlock turns "could not fault the pages in" into EAGAIN: memory is short, whatever the limit.
        if (error == Interop.LinuxConstants.EAGAIN)
        {
            return LockLimit.UnixMessage(LockRefusal.OutOfMemory, call, text, bytes, Limit(), linux: true);
        }

        if (error != Interop.LinuxConstants.ENOMEM)
        {
            return LockLimit.UnixMessage(LockRefusal.Other, call, text, bytes, Limit(), linux: true);
        }

        if (CheckMappings(start, end, out string detail) is LockRefusal mapping)
        {
            return LockLimit.UnixMessage(mapping, call, text, bytes, Limit(), linux: true, detail);
        }

        return LimitApplies(out string why)
            ? LockLimit.UnixMessage(LockRefusal.OverLimit, call, text, bytes, Limit(), linux: true)
            : LockLimit.UnixMessage(LockRefusal.OutOfMemory, call, text, bytes, Limit(), linux: true, why);
    }

    /// <summary>What in the mappings of [start, end) makes mlock fail with ENOMEM; null when nothing does.</summary>
    private LockRefusal? CheckMappings(nint start, nint end, out string detail)
    {
        detail = string.Empty;
        ProcMapEntry[] maps = Maps();
        if (maps.Length == 0)
        {
            // /proc not readable: mincore's ENOMEM still tells "not mapped" apart.
            return !OperatingSystem.IsLinux() || Mincore.TryCountResident(start, end, out _, out _) ? null : LockRefusal.NotMapped;
        }

        foreach (MapPiece p in ProcMaps.Pieces(maps, start, end))
        {
            if (p.IsGap)
            {
                detail = $"nothing is mapped at 0x{p.Start:X}-0x{p.End:X}";
                return LockRefusal.NotMapped;
            }

            ProcMapEntry m = maps[p.Index];
            if (!m.Readable && !m.Writable)
            {
                detail = $"0x{p.Start:X}-0x{p.End:X}{(m.Path.Length > 0 ? $" of '{m.Path}'" : string.Empty)}";
                return LockRefusal.NoAccess;
            }

            if (m.IsFileBacked && !m.IsDeleted && FileLength(m.Path) is long length)
            {
                long reach = m.Offset + (p.End - m.Start);
                if (reach > Pages.Ceiling(length))
                {
                    detail = string.Create(CultureInfo.InvariantCulture,
                        $"'{m.Path}' is {length} bytes long, and the range reaches offset {reach} of it");
                    return LockRefusal.PastEndOfFile;
                }
            }
        }

        return null;
    }

    private ProcMapEntry[] Maps()
    {
        if (_maps is null)
        {
            Interlocked.Increment(ref s_mapsReads);
            _maps = ProcMaps.ReadSelf();
        }

        return _maps;
    }

    private long? FileLength(string path)
    {
        if (!_fileLengths.TryGetValue(path, out long? length))
        {
            length = FileStatus.TryRegularLength(path);
            _fileLengths[path] = length;
        }

        return length;
    }

    [SupportedOSPlatform("linux")]
    [SupportedOSPlatform("macos")]
    private MemlockLimit? Limit()
    {
        if (!_limitRead)
        {
            _limit = PlatformLock.ReadMemlockLimit();
            _limitRead = true;
        }

        return _limit;
    }

    /// <summary>Whether RLIMIT_MEMLOCK binds this thread: a finite soft limit and no CAP_IPC_LOCK (capabilities are per thread).</summary>
    [SupportedOSPlatform("linux")]
    private bool LimitApplies(out string why)
    {
        why = string.Empty;
        if (Limit() is MemlockLimit { Soft: null })
        {
            why = "RLIMIT_MEMLOCK is unlimited, so the limit is not the cause";
            return false;
        }

        _limitApplies ??= !ThreadCapabilities.Has(ThreadCapabilities.IpcLock);
        if (_limitApplies == false)
        {
            why = "this thread holds CAP_IPC_LOCK, which bypasses RLIMIT_MEMLOCK, so the limit is not the cause";
        }

        return _limitApplies.Value;
    }
}
