using System.Runtime.InteropServices;

namespace Sharpi.Prefault;

/// <summary>
/// Whether this kernel supports MADV_POPULATE_READ (Linux 5.14+). Probed once on a private page, never inferred
/// from the kernel version (backports and seccomp filters make the version a poor guide).
/// </summary>
internal static unsafe class PopulateSupport
{
    /// <summary>The call, as failures and logs name it.</summary>
    internal const string Call = "madvise(MADV_POPULATE_READ)";

    private static readonly Lazy<(bool IsSupported, PlatformError Error)> s_probe = new(Probe);

    /// <summary>True where MADV_POPULATE_READ works; else false with the probe's failed call (None off Linux).</summary>
    internal static bool IsSupported(out PlatformError probeError)
    {
        (bool supported, probeError) = s_probe.Value;
        return supported;
    }

    private static (bool IsSupported, PlatformError Error) Probe()
    {
        if (!OperatingSystem.IsLinux())
        {
            return (false, PlatformError.None);
        }

        nuint page = (nuint)Environment.SystemPageSize;
        void* probe = NativeMemory.AlignedAlloc(page, page);
        try
        {
            return Interop.Libc.Madvise(probe, page, Interop.LinuxConstants.MADV_POPULATE_READ) == 0
                ? (true, PlatformError.None)
                : (false, PlatformError.LastErrno(Call));
        }
        finally
        {
            NativeMemory.AlignedFree(probe);
        }
    }
}
