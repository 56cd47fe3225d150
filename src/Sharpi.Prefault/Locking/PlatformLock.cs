namespace Sharpi.Prefault;

/// <summary>The per-OS lock calls: mlock/munlock (Linux, macOS) and VirtualLock/VirtualUnlock (Windows).</summary>
internal static unsafe class PlatformLock
{
    internal static bool IsSupported => OperatingSystem.IsLinux() || OperatingSystem.IsMacOS() || OperatingSystem.IsWindows();

    /// <summary>
    /// Locks [start, end) (page-aligned); false with the call's error where refused, or with
    /// <see cref="PlatformError.None"/> where the platform has no lock call.
    /// </summary>
    internal static bool TryLock(nint start, nint end, out PlatformError error) => TryCall(start, end, unlock: false, out error);

    /// <summary>Unlocks [start, end) (page-aligned); false with the call's error where it failed.</summary>
    internal static bool TryUnlock(nint start, nint end, out PlatformError error) => TryCall(start, end, unlock: true, out error);

    private static bool TryCall(nint start, nint end, bool unlock, out PlatformError error)
    {
        error = PlatformError.None;
        void* address = (void*)start;
        nuint length = (nuint)(end - start);
        if (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS())
        {
            if ((unlock ? Interop.Libc.Munlock(address, length) : Interop.Libc.Mlock(address, length)) == 0)
            {
                return true;
            }

            error = PlatformError.LastErrno(unlock ? "munlock" : "mlock");
            return false;
        }

        if (OperatingSystem.IsWindows())
        {
            if ((unlock ? Interop.Kernel32.VirtualUnlock(address, length) : Interop.Kernel32.VirtualLock(address, length)) != 0)
            {
                return true;
            }

            error = PlatformError.LastWin32(unlock ? "VirtualUnlock" : "VirtualLock");
            return false;
        }

        return false;
    }

    /// <summary>RLIMIT_MEMLOCK (Linux, macOS), or null where it could not be read.</summary>
    [SupportedOSPlatform("linux")]
    [SupportedOSPlatform("macos")]
    internal static MemlockLimit? ReadMemlockLimit()
    {
        bool linux = OperatingSystem.IsLinux();
        Interop.Libc.RLimit limit;
        int resource = linux ? Interop.LinuxConstants.RLIMIT_MEMLOCK : Interop.OSXConstants.RLIMIT_MEMLOCK;
        if (Interop.Libc.Getrlimit(resource, &limit) != 0)
        {
            return null;
        }

        ulong infinity = linux ? Interop.LinuxConstants.RLIM_INFINITY : Interop.OSXConstants.RLIM_INFINITY;
        return new MemlockLimit(ToLimit(limit.Current, infinity), ToLimit(limit.Maximum, infinity));
    }

    private static ulong? ToLimit(nuint value, ulong infinity) => value >= infinity ? null : value;
}
