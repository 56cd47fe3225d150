namespace Sharpi.Prefault;

// Files whose page cache the kernel hides from this process.
internal sealed unsafe partial class FileCacheProbe
{
    /// <summary>
    /// True when the kernel hides the file's page cache from this process (it could not open it for writing):
    /// cachestat's EPERM, or the kernel's rule re-checked (docs/why/platform.md).
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
                    return true; // the kernel's own check
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

    /// <summary>Whether a seccomp filter refuses cachestat, asked once.</summary>
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

    /// <summary>Whether this process could open the file for writing, as the kernel decides (owner, CAP_FOWNER, faccessat).</summary>
    [SupportedOSPlatform("linux")]
    private static bool MayWrite(SafeFileHandle handle, string path)
    {
        uint euid = Interop.Libc.Geteuid();
        return OwnedBy(handle, euid) || ThreadCapabilities.Has(ThreadCapabilities.Fowner)
            || Interop.Libc.Faccessat(Interop.LinuxConstants.AT_FDCWD, path, Interop.LinuxConstants.W_OK, Interop.LinuxConstants.AT_EACCESS) == 0;
    }

    /// <summary>False where statx cannot tell.</summary>
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

    /// <summary>Recounts from the page tables each piece of a hidden file, which mincore counted resident whole.</summary>
    private void CountHiddenAgain(nint start, nint end, ref long residentBytes, ref long unknownBytes)
    {
        for (int i = AddressRanges.FirstEndingAfter<MappedRange>(_pieces, start); i < _pieces.Length && (nuint)_pieces[i].Start < (nuint)end; i++)
        {
            MappedRange p = _pieces[i];
            if (OperatingSystem.IsLinux() && TryOpen(p.File, out _, out bool hidesCache) && hidesCache)
            {
                nint from = (nuint)p.Start > (nuint)start ? p.Start : start;
                nint to = (nuint)p.End < (nuint)end ? p.End : end;
                residentBytes -= to - from;
                CountMapped(from, to, ref residentBytes, ref unknownBytes);
            }
        }
    }

    /// <summary>Pages this process maps are resident, the rest unknown.</summary>
    private void CountMapped(nint start, nint end, ref long residentBytes, ref long unknownBytes)
    {
        long present = 0;
        bool known = OperatingSystem.IsLinux() && (_mappedPages ??= new ProcPagemap()).TryCountPresent(start, end, out present);
        residentBytes += known ? present : 0;
        unknownBytes += (end - start) - (known ? present : 0);
    }
}
