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

    private static int s_state; // 0 unknown, 1 supported, -1 unsupported
    private static PlatformError s_probeError;

    /// <summary>True where MADV_POPULATE_READ works; else false with the probe's failed call (None off Linux).</summary>
    internal static bool IsSupported(out PlatformError probeError)
    {
        int state = Volatile.Read(ref s_state);
        if (state == 0)
        {
            state = Probe(out PlatformError error);
            s_probeError = error;
            Volatile.Write(ref s_state, state);
        }

        probeError = s_probeError;
        return state > 0;
    }

    private static int Probe(out PlatformError error)
    {
        error = PlatformError.None;
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

            error = PlatformError.LastErrno(Call);
            return -1;
        }
        finally
        {
            NativeMemory.AlignedFree(probe);
        }
    }
}
