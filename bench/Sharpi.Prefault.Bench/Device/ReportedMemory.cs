using System.Globalization;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The free memory the kernel could report to a host (whole free blocks of at least <c>page_reporting_order</c>) that
/// it has not reported yet, and the blocks it has, read from <c>/proc/kpageflags</c> (root only). Every page of a free
/// buddy block carries KPF_BUDDY there, and the head page of a block the page reporting worker handed to the host
/// also KPF_UPTODATE: the kernel keeps its PG_reported in PG_uptodate (include/linux/page-flags.h), and the allocator
/// clears it when the block is split or merged. On this project's VM an eviction of 1 GiB showed 455 unreported 2 MiB
/// spans at once, then the worker reported them in bursts 2 s apart, down to 20 after 6.3 s.
/// </summary>
/// <param name="Unreported">Per span (2^order pages, aligned): wholly free, and in no reported block.</param>
/// <param name="ReportedHeads">Per span: it starts a free block marked reported (what only the reporting worker marks).</param>
/// <param name="SpanBytes">The bytes of one span.</param>
internal sealed record ReportedMemory(bool[] Unreported, bool[] ReportedHeads, long SpanBytes)
{
    private const string KPageFlags = "/proc/kpageflags";
    private const ulong Uptodate = 1UL << 3;
    private const ulong Buddy = 1UL << 10;

    /// <summary>
    /// One look at every <paramref name="order"/>-sized, aligned span of physical memory. First one <c>pread</c> per
    /// span (the last page of one and the first of the next: 12,800 reads for 25 GiB): a span whose first page heads
    /// a reported free block, or lies inside a larger one (its address rounded down to a block size up to
    /// <paramref name="maxOrder"/> heads one: a wholly free neighbour of a reported block would have merged with it),
    /// is reported. Where the first and last pages are free and no reported block holds the span, the whole span is
    /// read: unreported where every page is free (buddy blocks merge, so it lies inside one block of at least that
    /// order); on a fragmented machine a tenth of all spans had free pages at both ends and allocated ones between.
    /// Null where the file cannot be read (not root).
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

            int spans = Math.Min(first.Count, last.Count);
            var heads = new bool[spans];
            for (int i = 0; i < spans; i++)
            {
                heads[i] = (first[i] & (Buddy | Uptodate)) == (Buddy | Uptodate);
            }

            var unreported = new bool[spans];
            byte[] span = new byte[spanPages * 8];
            for (int i = 0; i < spans; i++)
            {
                unreported[i] = (first[i] & Buddy) != 0 && (last[i] & Buddy) != 0 && !InReportedBlock(i, heads, order, maxOrder)
                    && WhollyFree(flags, span, i * spanPages * 8);
            }

            return new ReportedMemory(unreported, heads, spanPages * Environment.SystemPageSize);
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

    /// <summary>The spans of <paramref name="of"/> (unreported spans of an earlier look) still free and unreported now.</summary>
    internal int StillUnreported(bool[] of)
    {
        int count = 0;
        for (int i = 0; i < Math.Min(of.Length, Unreported.Length); i++)
        {
            count += of[i] && Unreported[i] ? 1 : 0;
        }

        return count;
    }

    /// <summary>The reported blocks now that were not in <paramref name="before"/>: the reporting worker's work in between (allocations only take marks away).</summary>
    internal int NewlyReported(ReportedMemory before)
    {
        int count = 0;
        for (int i = 0; i < Math.Min(before.ReportedHeads.Length, ReportedHeads.Length); i++)
        {
            count += ReportedHeads[i] && !before.ReportedHeads[i] ? 1 : 0;
        }

        return count;
    }

    /// <summary>Whether span <paramref name="i"/> starts a reported block or lies where a larger one would, started by a reported head.</summary>
    private static bool InReportedBlock(int i, bool[] heads, int order, int maxOrder)
    {
        for (int k = order; k <= maxOrder; k++)
        {
            if (heads[i & ~((1 << (k - order)) - 1)])
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Whether every page of the span at <paramref name="offset"/> in /proc/kpageflags is a free buddy page.</summary>
    private static bool WhollyFree(SafeFileHandle flags, byte[] span, long offset)
    {
        if (Read(flags, span, offset) < span.Length)
        {
            return false;
        }

        foreach (ulong page in MemoryMarshal.Cast<byte, ulong>(span))
        {
            if ((page & Buddy) == 0)
            {
                return false;
            }
        }

        return true;
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
