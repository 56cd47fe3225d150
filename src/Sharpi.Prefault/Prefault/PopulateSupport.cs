using System.Runtime.InteropServices;

namespace Sharpi.Prefault;

/// <summary>
/// Whether this kernel supports MADV_POPULATE_READ (Linux 5.14+). Probed once on a private page, never inferred
/// from the kernel version (backports and seccomp filters make the version a poor guide).
/// </summary>
internal static unsafe class PopulateSupport
{
    private static int s_state; // 0 unknown, 1 supported, -1 unsupported
    private static int s_probeErrno;

    internal static bool IsSupported(out int probeErrno)
    {
        int state = Volatile.Read(ref s_state);
        if (state == 0)
        {
            state = Probe(out int errno);
            s_probeErrno = errno;
            Volatile.Write(ref s_state, state);
        }

        probeErrno = s_probeErrno;
        return state > 0;
    }

    private static int Probe(out int errno)
    {
        errno = 0;
        if (!OperatingSystem.IsLinux())
        {
            return -1;
        }

        nuint page = (nuint)Environment.SystemPageSize;
        void* probe = NativeMemory.AlignedAlloc(page, page);
        try
        {
            if (Interop.Libc.Madvise(probe, page, Interop.LinuxConstants.MADV_POPULATE_READ) == 0)
            {
                return 1;
            }

            errno = Marshal.GetLastPInvokeError();
            return -1;
        }
        finally
        {
            NativeMemory.AlignedFree(probe);
        }
    }
}
