using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The warm limit: bare madvise(MADV_POPULATE_READ) over a mapping, one contiguous slice per thread, nothing else
/// (no residency check, no touch), so the library's own work shows as the gap to it.
/// </summary>
internal static unsafe class RawPopulate
{
    internal static void Run(nint address, long length, int threads)
    {
        if (!OperatingSystem.IsLinux())
        {
            throw new BenchException("madvise(MADV_POPULATE_READ) needs Linux 5.14 or later.");
        }

        RunLinux(address, length, threads);
    }

    [SupportedOSPlatform("linux")]
    private static void RunLinux(nint address, long length, int threads)
    {
        nint page = Environment.SystemPageSize;
        nint start = address & ~(page - 1);
        long total = ((address + (nint)length + page - 1) & ~(page - 1)) - start;
        long slice = (total / threads + page - 1) / page * page;
        Parallel.For(0, threads, new ParallelOptions { MaxDegreeOfParallelism = threads }, t =>
        {
            long from = t * slice;
            long to = Math.Min(total, from + slice);
            if (to > from && Interop.Libc.Madvise((void*)(start + (nint)from), (nuint)(to - from), Interop.LinuxConstants.MADV_POPULATE_READ) != 0)
            {
                throw new BenchException($"madvise(MADV_POPULATE_READ) failed: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
            }
        });
    }
}
