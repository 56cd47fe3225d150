using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault;

/// <summary>The per-OS lock calls: mlock/munlock (Linux, macOS) and VirtualLock/VirtualUnlock (Windows).</summary>
internal static unsafe class PlatformLock
{
    internal static bool IsSupported => OperatingSystem.IsLinux() || OperatingSystem.IsMacOS() || OperatingSystem.IsWindows();

    /// <summary>Locks [start, end) (page-aligned). False with the OS error where refused or unsupported (error 0).</summary>
    internal static bool TryLock(nint start, nint end, out int error)
    {
        error = 0;
        if (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS())
        {
            return Check(Interop.Libc.Mlock((void*)start, (nuint)(end - start)) == 0, ref error);
        }

        if (OperatingSystem.IsWindows())
        {
            return Check(Interop.Kernel32.VirtualLock((void*)start, (nuint)(end - start)) != 0, ref error);
        }

        return false;
    }

    /// <summary>Unlocks [start, end) (page-aligned). False with the OS error where the call failed.</summary>
    internal static bool TryUnlock(nint start, nint end, out int error)
    {
        error = 0;
        if (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS())
        {
            return Check(Interop.Libc.Munlock((void*)start, (nuint)(end - start)) == 0, ref error);
        }

        if (OperatingSystem.IsWindows())
        {
            return Check(Interop.Kernel32.VirtualUnlock((void*)start, (nuint)(end - start)) != 0, ref error);
        }

        return false;
    }

    internal static string LockCallName => OperatingSystem.IsWindows() ? "VirtualLock" : "mlock";

    internal static string UnlockCallName => OperatingSystem.IsWindows() ? "VirtualUnlock" : "munlock";

    private static bool Check(bool succeeded, ref int error)
    {
        if (!succeeded)
        {
            error = Marshal.GetLastPInvokeError();
        }

        return succeeded;
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
