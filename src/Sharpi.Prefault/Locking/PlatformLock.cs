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

    /// <summary>Why a lock of [start, end) failed with <paramref name="error"/>, and what to do, for the lease and the log.</summary>
    internal static string DescribeFailure(int error, nint start, nint end)
    {
        long bytes = end - start;
        if (!IsSupported)
        {
            return "locking memory is not supported on this platform; the pages stay mapped, unlocked";
        }

        if (OperatingSystem.IsWindows())
        {
            return LockLimit.WindowsMessage(error, bytes);
        }

        bool linux = OperatingSystem.IsLinux();
        int enomem = linux ? Interop.LinuxConstants.ENOMEM : Interop.OSXConstants.ENOMEM;
        int eagain = linux ? Interop.LinuxConstants.EAGAIN : Interop.OSXConstants.EAGAIN;
        int eperm = linux ? Interop.LinuxConstants.EPERM : Interop.OSXConstants.EPERM;

        // ENOMEM also means "not mapped"; mincore tells the two apart without touching a page.
        if (error == enomem && Residency.IsSupported && !Mincore.TryCountResident(start, end, out _, out _))
        {
            return $"{LockCallName} failed, {Errno.Describe(error)}: the range is not (wholly) mapped. Lock only ranges of a live mapping.";
        }

        LockRefusal kind = error == enomem || error == eagain ? LockRefusal.OverLimit
            : error == eperm ? LockRefusal.NotPermitted
            : LockRefusal.Other;
        MemlockLimit? limit = linux || OperatingSystem.IsMacOS() ? ReadMemlockLimit() : null;
        return LockLimit.UnixMessage(kind, LockCallName, Errno.Describe(error), bytes, limit, linux);
    }

    private static bool Check(bool succeeded, ref int error)
    {
        if (!succeeded)
        {
            error = Marshal.GetLastPInvokeError();
        }

        return succeeded;
    }

    [SupportedOSPlatform("linux")]
    [SupportedOSPlatform("macos")]
    private static MemlockLimit? ReadMemlockLimit()
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
