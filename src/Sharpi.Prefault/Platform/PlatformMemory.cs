namespace Sharpi.Prefault;

/// <summary>The sweep's per-OS mapping checks and read-ahead hints.</summary>
internal static unsafe class PlatformMemory
{
    /// <summary>True when [start, end) is mapped and readable, as far as the OS tells without a read.</summary>
    internal static bool IsReadable(nint start, nint end, out PlatformError error, out string why)
    {
        error = PlatformError.None;
        why = string.Empty;
        if (OperatingSystem.IsWindows())
        {
            return IsCommittedAndReadable(start, end, out error, out why);
        }

        if (FileCacheProbe.IsSupported && !Mincore.TryCountResident(start, end, out _, out int errno))
        {
            error = PlatformError.FromErrno("mincore", errno);
            why = $"not mapped: mincore failed, {error.Describe()}";
            return false;
        }

        return true;
    }

    [SupportedOSPlatform("windows")]
    private static bool IsCommittedAndReadable(nint start, nint end, out PlatformError error, out string why)
    {
        error = PlatformError.None;
        why = string.Empty;
        Interop.Kernel32.MEMORY_BASIC_INFORMATION info;
        for (nint at = start; (nuint)at < (nuint)end;)
        {
            if (Interop.Kernel32.VirtualQuery((void*)at, &info, (nuint)sizeof(Interop.Kernel32.MEMORY_BASIC_INFORMATION)) == 0)
            {
                error = PlatformError.LastWin32("VirtualQuery");
                why = $"VirtualQuery failed, {error.Describe()}";
                return false;
            }

            if (info.State != Interop.Kernel32.MEM_COMMIT || (info.Protect & (Interop.Kernel32.PAGE_NOACCESS | Interop.Kernel32.PAGE_GUARD)) != 0)
            {
                why = "not committed or not readable (VirtualQuery)";
                return false;
            }

            at = (nint)info.BaseAddress + (nint)info.RegionSize;
        }

        return true;
    }

    /// <summary>Hints read-ahead over the regions, rounded out to pages; adds failures, never throws.</summary>
    internal static void Hint(MergedRegion[] regions, List<RegionFailure> failures)
    {
        if (OperatingSystem.IsWindows())
        {
            if (OperatingSystem.IsWindowsVersionAtLeast(6, 2))
            {
                PrefetchWindows(regions, failures);
            }

            return;
        }

        if (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS() || OperatingSystem.IsFreeBSD())
        {
            AdviseWillNeed(regions, failures);
        }
    }

    [SupportedOSPlatform("linux")]
    [SupportedOSPlatform("macos")]
    [SupportedOSPlatform("freebsd")]
    private static void AdviseWillNeed(MergedRegion[] regions, List<RegionFailure> failures)
    {
        int willNeed = OperatingSystem.IsMacOS() ? Interop.OSXConstants.MADV_WILLNEED : Interop.LinuxConstants.MADV_WILLNEED;
        foreach (MergedRegion r in regions)
        {
            nint start = Pages.Floor(r.Start);
            nint end = Pages.Ceiling(r.End);
            if (Interop.Libc.Madvise((void*)start, (nuint)(end - start), willNeed) != 0)
            {
                PlatformError error = PlatformError.LastErrno("madvise(MADV_WILLNEED)");
                failures.Add(new RegionFailure(r.DisplayName, r.Start, r.Length, error, $"madvise(MADV_WILLNEED) failed: {error.Describe()}"));
            }
        }
    }

    [SupportedOSPlatform("windows6.2")]
    private static void PrefetchWindows(MergedRegion[] regions, List<RegionFailure> failures)
    {
        // PrefetchVirtualMemory refuses 0 entries: a false failure.
        if (regions.Length == 0)
        {
            return;
        }

        var entries = new Interop.Kernel32.WIN32_MEMORY_RANGE_ENTRY[regions.Length];
        for (int i = 0; i < regions.Length; i++)
        {
            entries[i].VirtualAddress = (void*)regions[i].Start;
            entries[i].NumberOfBytes = (nuint)regions[i].Length;
        }

        fixed (Interop.Kernel32.WIN32_MEMORY_RANGE_ENTRY* p = entries)
        {
            if (Interop.Kernel32.PrefetchVirtualMemory(Interop.Kernel32.CurrentProcess, (nuint)entries.Length, p, 0) == 0)
            {
                PlatformError error = PlatformError.LastWin32("PrefetchVirtualMemory");
                failures.Add(new RegionFailure("(all regions)", regions[0].Start, RegionSet.TotalBytes(regions), error,
                    $"PrefetchVirtualMemory failed: {error.Describe()}; a touch sweep, where the strategy has one, still runs"));
            }
        }
    }
}
