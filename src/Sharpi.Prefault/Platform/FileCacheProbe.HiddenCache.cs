using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

// Files whose page cache the kernel hides from this process, and how they are counted instead.
internal sealed unsafe partial class FileCacheProbe
{
    /// <summary>
    /// True when the kernel hides the page cache of <paramref name="handle"/>'s file from this process (one it could not
    /// open for writing): cachestat's EPERM where it exists, else the kernel's own rule re-checked (docs/why/platform.md).
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

    /// <summary>Whether a seccomp filter refuses cachestat, asked once (on no descriptor).</summary>
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
    /// Whether this process could open the file for writing, as the kernel decides whether mincore may tell: owner,
    /// CAP_FOWNER, or a writer by faccessat.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private static bool MayWrite(SafeFileHandle handle, string path)
    {
        uint euid = Interop.Libc.Geteuid();
        return OwnedBy(handle, euid) || ThreadCapabilities.Has(ThreadCapabilities.Fowner)
            || Interop.Libc.Faccessat(Interop.LinuxConstants.AT_FDCWD, path, Interop.LinuxConstants.W_OK, Interop.LinuxConstants.AT_EACCESS) == 0;
    }

    /// <summary>Whether <paramref name="euid"/> owns the file; false where statx cannot tell.</summary>
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
    /// After mincore counted [start, end), recounts from the page tables each piece whose file hides its cache (mincore
    /// called it resident whole).
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

    /// <summary>Counts a piece that hides its cache: pages this process maps are resident, the rest unknown.</summary>
    private void CountMapped(nint start, nint end, ref long residentBytes, ref long unknownBytes)
    {
        long present = 0;
        bool known = OperatingSystem.IsLinux() && (_mappedPages ??= new ProcPagemap()).TryCountPresent(start, end, out present);
        residentBytes += known ? present : 0;
        unknownBytes += (end - start) - (known ? present : 0);
    }
}
