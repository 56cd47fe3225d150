using System.Runtime.InteropServices;

namespace Sharpi.Prefault;

/// <summary>
/// Whether this kernel supports MADV_POPULATE_READ (Linux 5.14+). Probed once on a private page, never inferred
/// from the kernel version (backports and seccomp filters make the version a poor guide).
/// </summary>
internal static unsafe class PopulateSupport
{
    private static readonly Lazy<(bool IsSupported, int Errno)> s_probe = new(Probe);

    internal static bool IsSupported(out int probeErrno)
    {
        (bool supported, probeErrno) = s_probe.Value;
        return supported;
    }

    private static (bool IsSupported, int Errno) Probe()
    {
        if (!OperatingSystem.IsLinux())
        {
            return (false, 0);
        }

        nuint page = (nuint)Environment.SystemPageSize;
        void* probe = NativeMemory.AlignedAlloc(page, page);
        try
        {
            return Interop.Libc.Madvise(probe, page, Interop.LinuxConstants.MADV_POPULATE_READ) == 0
                ? (true, 0)
                : (false, Marshal.GetLastPInvokeError());
        }
        finally
        {
            NativeMemory.AlignedFree(probe);
        }
    }
}
