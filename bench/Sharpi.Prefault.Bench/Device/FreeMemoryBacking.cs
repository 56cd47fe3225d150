using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// Gives a VM back most of the free memory its host took while free page reporting ran. Suspending reporting keeps the
/// pages freed from then on with the VM, but the blocks reported before it stay with the host until something touches
/// them: a row's page cache that lands there pays a host fault for every page of it, in the load or in the first
/// request. On this project's VM (kernel 6.18, 1 GiB cold file, a C program: MADV_HUGEPAGE, MADV_POPULATE_READ on 2
/// threads, then the same sum three times) the first sum after the populate took 0.31-0.87 s against 0.064 s for the
/// second with reporting on, and 0.063-0.072 s against 0.065-0.071 s once the free memory had been faulted in and freed
/// with reporting off. So after suspending, the bench faults in and frees the free memory once, 2 MiB-aligned and
/// advised MADV_HUGEPAGE, with MADV_POPULATE_WRITE over 64 MiB slices that one thread per core takes in turn: about
/// 1.2 GiB/s where the host had taken it, 13 GiB/s where it had not. It leaves a reserve free (see <see cref="Plan"/>),
/// so blocks the host took back may remain there.
/// </summary>
[SupportedOSPlatform("linux")]
internal static unsafe class FreeMemoryBacking
{
    private const nuint HugePageSize = 2 * 1024 * 1024;

    private const long Slice = 64L * 1024 * 1024;

    /// <summary>Left free: the larger of 512 MiB and a sixteenth of the free memory, so nothing else starves meanwhile.</summary>
    private const long MinReserve = 512L * 1024 * 1024;

    /// <summary>What one run faulted in, of how much was free, and how long it took.</summary>
    internal readonly record struct Outcome(long Bytes, long FreeBytes, double Seconds, string? Limit);

    /// <summary>
    /// How much to fault in: the free memory (MemFree) less the reserve, and where this process's cgroup limits memory
    /// no more than half the room it has left (the library's <see cref="MemoryFigures"/>: the limit less what the group
    /// uses that the kernel cannot reclaim): the faults are charged to the bench's group, and its OOM killer would end
    /// the bench with SIGKILL, leaving reporting suspended.
    /// </summary>
    internal static (long Bytes, long FreeBytes, string? Limit) Plan()
    {
        long free = MemInfo.Bytes("MemFree");
        long bytes = free - Math.Max(MinReserve, free / 16);
        string? limit = null;
        MemoryFigures figures = MemoryFigures.Current();
        if (figures.CgroupLimitBytes is long groupLimit)
        {
            long room = Math.Max(0, groupLimit - (figures.CgroupUsedBytes ?? 0));
            if (room / 2 < bytes)
            {
                bytes = room / 2;
                limit = $"half of the {Sizes.Format(room)} its cgroup has left";
            }
        }

        return (Math.Max(0, bytes / (long)HugePageSize * (long)HugePageSize), free, limit);
    }

    /// <summary>Faults in and frees what <see cref="Plan"/> says; a slice the kernel refuses (other than an old kernel's EINVAL) is left alone.</summary>
    internal static Outcome Run()
    {
        (long bytes, long free, string? limit) = Plan();
        if (bytes <= 0)
        {
            return new Outcome(0, free, 0, limit);
        }

        long started = Stopwatch.GetTimestamp();
        nint memory;
        try
        {
            memory = (nint)NativeMemory.AlignedAlloc((nuint)bytes, HugePageSize);
        }
        catch (OutOfMemoryException)
        {
            return new Outcome(0, free, 0, limit);
        }

        long done = 0;
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
                    if (Interop.Libc.Madvise(start, (nuint)length, Interop.LinuxConstants.MADV_POPULATE_WRITE) == 0)
                    {
                        Interlocked.Add(ref done, length);
                    }
                    else if (Marshal.GetLastPInvokeError() == Interop.LinuxConstants.EINVAL)
                    {
                        // Before Linux 5.14 (no MADV_POPULATE_WRITE): one write per page does the same. Any other error
                        // (ENOMEM: the memory ran out) leaves the slice alone rather than touch it into the OOM killer.
                        for (long offset = 0; offset < length; offset += Environment.SystemPageSize)
                        {
                            start[offset] = 1;
                        }

                        Interlocked.Add(ref done, length);
                    }
                }
            });
        }
        finally
        {
            NativeMemory.AlignedFree((void*)memory);
        }

        return new Outcome(done, free, Stopwatch.GetElapsedTime(started).TotalSeconds, limit);
    }
}
