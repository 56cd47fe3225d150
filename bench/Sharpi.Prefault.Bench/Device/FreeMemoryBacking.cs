using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// Gives a VM back the free memory its host took while free page reporting ran. Suspending reporting keeps the pages
/// freed from then on with the VM, but the blocks reported before it stay with the host until something touches them:
/// a row's page cache that lands there pays a host fault for every page of it, in the load or in the first request.
/// On this project's VM (kernel 6.18, 1 GiB cold file, a C program: MADV_HUGEPAGE, MADV_POPULATE_READ on 2 threads,
/// then the same sum three times) the first sum after the populate took 0.31-0.87 s against 0.064 s for the second
/// with reporting on, and 0.063-0.072 s against 0.065-0.071 s once the free memory had been faulted in and freed with
/// reporting off. So after suspending, the bench faults in and frees all free memory but a reserve, once (2 MiB pages,
/// MADV_POPULATE_WRITE, one slice per core): about 1.2 GiB/s where the host had taken it, 13 GiB/s where it had not.
/// </summary>
[SupportedOSPlatform("linux")]
internal static unsafe class FreeMemoryBacking
{
    private const int MadvPopulateWrite = 23;

    private const nuint HugePageSize = 2 * 1024 * 1024;

    private const long Slice = 64L * 1024 * 1024;

    /// <summary>Left free: the larger of 512 MiB and a sixteenth of the free memory, so nothing else starves meanwhile.</summary>
    private const long MinReserve = 512L * 1024 * 1024;

    /// <summary>
    /// Faults in and frees the free memory but the reserve, and in a memory-limited cgroup no more than half its limit
    /// (the runtime's <see cref="GCMemoryInfo.TotalAvailableMemoryBytes"/>: the bench's own memory counts against it
    /// and going past it would end the bench, not the test); returns the bytes and the seconds it took (0 and 0 where
    /// there was nothing to do or no memory to take).
    /// </summary>
    internal static (long Bytes, double Seconds) Run()
    {
        long free = MemInfo.Bytes("MemFree");
        long limit = GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
        long room = limit < MemInfo.Bytes("MemTotal") ? limit / 2 : long.MaxValue;
        long bytes = Math.Min(free - Math.Max(MinReserve, free / 16), room) / (long)HugePageSize * (long)HugePageSize;
        if (bytes <= 0)
        {
            return (0, 0);
        }

        long started = Stopwatch.GetTimestamp();
        nint memory;
        try
        {
            memory = (nint)NativeMemory.AlignedAlloc((nuint)bytes, HugePageSize);
        }
        catch (OutOfMemoryException)
        {
            return (0, 0);
        }

        try
        {
            _ = Interop.Libc.Madvise((void*)memory, (nuint)bytes, Interop.LinuxConstants.MADV_HUGEPAGE);
            long next = -1;
            WorkerThreads.Run(Environment.ProcessorCount, "free memory backing", _ =>
            {
                for (long i = Interlocked.Increment(ref next); i * Slice < bytes; i = Interlocked.Increment(ref next))
                {
                    byte* start = (byte*)memory + i * Slice;
                    long length = Math.Min(Slice, bytes - i * Slice);
                    if (Interop.Libc.Madvise(start, (nuint)length, MadvPopulateWrite) != 0)
                    {
                        // Before Linux 5.14: one write per page does the same.
                        for (long offset = 0; offset < length; offset += Environment.SystemPageSize)
                        {
                            start[offset] = 1;
                        }
                    }
                }
            });
        }
        finally
        {
            NativeMemory.AlignedFree((void*)memory);
        }

        return (bytes, Stopwatch.GetElapsedTime(started).TotalSeconds);
    }
}
