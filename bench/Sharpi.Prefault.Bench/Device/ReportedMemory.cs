using System.Globalization;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The free memory the kernel could report to a host (whole free blocks of at least <c>page_reporting_order</c>), split
/// into what it has reported and what it has not yet, read from <c>/proc/kpageflags</c> (root only). Every page of a
/// free buddy block carries KPF_BUDDY there, and the head page of a block the page reporting worker handed to the
/// host also KPF_UPTODATE: the kernel keeps its PG_reported in PG_uptodate (include/linux/page-flags.h), and the
/// allocator clears it when the block is split or merged. On this project's VM an eviction of 1 GiB showed 455
/// unreported 2 MiB spans at once, then the worker reported them in bursts 2 s apart, down to 20 after 6.3 s.
/// </summary>
/// <param name="ReportedBytes">Free memory in blocks whose head is marked reported.</param>
/// <param name="UnreportedBytes">Free memory in blocks large enough to be reported that are not (yet).</param>
internal readonly record struct ReportedMemory(long ReportedBytes, long UnreportedBytes)
{
    private const string KPageFlags = "/proc/kpageflags";
    private const ulong Uptodate = 1UL << 3;
    private const ulong Buddy = 1UL << 10;

    /// <summary>
    /// One look at every <paramref name="order"/>-sized, aligned span of physical memory: free when its first and its
    /// last page are free buddy pages (buddy blocks merge, so such a span lies inside one block of at least that
    /// order), reported when its block's head is marked. A block larger than a span starts at the span's address
    /// rounded down to the block's size, up to <paramref name="maxOrder"/>. Two reads per span (the last page of one
    /// and the first of the next in one <c>pread</c>): 12,800 reads for 25 GiB, about 20 ms. Null where the file
    /// cannot be read (not root).
    /// </summary>
    internal static ReportedMemory? Probe(int order, int maxOrder)
    {
        try
        {
            using SafeFileHandle flags = File.OpenHandle(KPageFlags, FileMode.Open, FileAccess.Read);
            long spanPages = 1L << order;
            var first = new List<ulong>(16_384);
            var last = new List<ulong>(16_384);
            Span<byte> pair = stackalloc byte[16];
            if (Read(flags, pair[..8], 0) < 8)
            {
                return null;
            }

            first.Add(MemoryMarshal.Read<ulong>(pair));
            for (long pfn = spanPages; ; pfn += spanPages)
            {
                int read = Read(flags, pair, (pfn - 1) * 8);
                if (read < 8)
                {
                    first.RemoveAt(first.Count - 1);
                    break;
                }

                last.Add(MemoryMarshal.Read<ulong>(pair));
                if (read < 16)
                {
                    break;
                }

                first.Add(MemoryMarshal.Read<ulong>(pair[8..]));
            }

            return Classify(first, last, order, maxOrder, Environment.SystemPageSize);
        }
        catch (Exception e) when (e is UnauthorizedAccessException or IOException)
        {
            return null;
        }
    }

    /// <summary>Whether this process may read <c>/proc/kpageflags</c> (root).</summary>
    internal static bool CanProbe(out string? why)
    {
        try
        {
            using SafeFileHandle flags = File.OpenHandle(KPageFlags, FileMode.Open, FileAccess.Read);
            why = null;
            return true;
        }
        catch (Exception e) when (e is UnauthorizedAccessException or IOException)
        {
            why = $"{KPageFlags} cannot be read ({e.Message.TrimEnd('.')}; it needs root)";
            return false;
        }
    }

    /// <summary>The largest order of the buddy allocator: <c>/proc/buddyinfo</c> has one column per order.</summary>
    internal static int MaxOrder()
    {
        string? line = BlockDevice.TryRead("/proc/buddyinfo")?.Split('\n')[0];
        int zone = line?.IndexOf("zone", StringComparison.Ordinal) ?? -1;
        if (line is null || zone < 0)
        {
            return 10;
        }

        // "Node 0, zone      DMA      0      0 ..." : the counts after the zone's name.
        string[] fields = line[(zone + 4)..].Split(' ', StringSplitOptions.RemoveEmptyEntries);
        int counts = fields.Skip(1).Count(static f => long.TryParse(f, NumberStyles.None, CultureInfo.InvariantCulture, out _));
        return counts > 0 ? counts - 1 : 10;
    }

    private static ReportedMemory Classify(List<ulong> first, List<ulong> last, int order, int maxOrder, int pageSize)
    {
        int spans = Math.Min(first.Count, last.Count);
        var free = new bool[spans];
        for (int i = 0; i < spans; i++)
        {
            free[i] = (first[i] & Buddy) != 0 && (last[i] & Buddy) != 0;
        }

        long reported = 0;
        long unreported = 0;
        for (int i = 0; i < spans; i++)
        {
            if (!free[i])
            {
                continue;
            }

            if (IsReported(i, first, free, order, maxOrder))
            {
                reported++;
            }
            else
            {
                unreported++;
            }
        }

        long spanBytes = (1L << order) * pageSize;
        return new ReportedMemory(reported * spanBytes, unreported * spanBytes);
    }

    /// <summary>Whether free span <paramref name="i"/> lies in a reported block: its own head, or that of a larger free block around it.</summary>
    private static bool IsReported(int i, List<ulong> first, bool[] free, int order, int maxOrder)
    {
        if ((first[i] & Uptodate) != 0)
        {
            return true;
        }

        for (int k = order + 1; k <= maxOrder; k++)
        {
            int size = 1 << (k - order);
            int head = i & ~(size - 1);
            if (head + size > free.Length)
            {
                return false;
            }

            for (int j = head; j < head + size; j++)
            {
                if (!free[j])
                {
                    return false;
                }
            }

            if ((first[head] & Uptodate) != 0)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary><c>pread</c> that reads the end of the file (EINVAL past the last page frame on some kernels) as 0 bytes.</summary>
    private static int Read(SafeFileHandle handle, Span<byte> buffer, long offset)
    {
        try
        {
            return RandomAccess.Read(handle, buffer, offset);
        }
        catch (IOException)
        {
            return 0;
        }
    }
}
