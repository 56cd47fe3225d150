namespace Sharpi.Prefault;

/// <summary>Whether MADV_POPULATE_READ works (Linux 5.14+).</summary>
internal static unsafe class PopulateSupport
{
    internal const string Call = "madvise(MADV_POPULATE_READ)";

    /// <summary>False with the probe's error (None off Linux).</summary>
    internal static bool IsSupported(out PlatformError probeError)
    {
        probeError = Probed.Answer.Error;
        return Probed.Answer.IsAvailable;
    }

    private static class Probed
    {
        internal static readonly ProbeAnswer Answer = new(Probe(out PlatformError error), error);
    }

    private static bool Probe(out PlatformError error)
    {
        error = PlatformError.None;
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }

        nuint page = (nuint)Environment.SystemPageSize;
        void* probe = NativeMemory.AlignedAlloc(page, page);
        try
        {
            if (Interop.Libc.Madvise(probe, page, Interop.LinuxConstants.MADV_POPULATE_READ) == 0)
            {
                return true;
            }

            error = PlatformError.LastErrno(Call);
            return false;
        }
        finally
        {
            NativeMemory.AlignedFree(probe);
        }
    }
}
