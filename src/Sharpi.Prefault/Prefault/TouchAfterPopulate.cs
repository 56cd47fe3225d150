namespace Sharpi.Prefault;

/// <summary>
/// Whether the sweep reads every page once more after <c>MADV_POPULATE_READ</c> mapped it. It pays only on a virtual
/// machine whose memory balloon reports free pages to the host (virtio-balloon with <c>VIRTIO_BALLOON_F_REPORTING</c>,
/// on by default in Firecracker and common in clouds): the host takes reported pages back, so the page cache a
/// populate fills lands on guest memory that the host must fault in again at the first CPU access, a cost the guest
/// never counts as a fault. The touch (through the kernel, see <see cref="SafeTouch"/>) pays it in the sweep, in
/// parallel, instead of in the engine's first request. Elsewhere populate leaves nothing behind to pay for, and the
/// touch only costs time.
/// </summary>
/// <remarks>
/// Measured on a cold 2 GiB file (2 cores, ext4, kernel 6.18, read_ahead_kb 128, request moe, medians of 5), bench
/// <c>coldstart --strategies limit-direct-2,prefault,none --cache cold --repeat 5 --read-ahead-kb 128</c>. With
/// reporting on (<c>--free-page-reporting keep</c>): populate and touch loaded in 1.45 s and the first request then
/// took 0.049 s (1.17x warm); with the touch patched out, populate loaded in 1.00 s and left 0.735 s (19x warm) to
/// the first request. With reporting suspended (the bench's default, as on bare metal): populate and touch 0.628 s
/// and 0.045 s (1.02x warm); populate alone 0.552 s and 0.047 s (1.06x warm), 0.97x the O_DIRECT limit where the
/// touch made it 0.89x.
/// </remarks>
internal static class TouchAfterPopulate
{
    internal const string ReportingOrderPath = "/sys/module/page_reporting/parameters/page_reporting_order";

    internal const string BalloonDriverPath = "/sys/bus/virtio/drivers/virtio_balloon";

    internal const string BuddyInfoPath = "/proc/buddyinfo";

    /// <summary>VIRTIO_BALLOON_F_REPORTING: the bit of a virtio device's <c>features</c> string (one '0'/'1' per bit, bit 0 first).</summary>
    internal const int ReportingFeatureBit = 5;

    /// <summary>The buddy allocator's orders (MAX_PAGE_ORDER + 1) where /proc/buddyinfo cannot be read: 11 on x86-64 and arm64 with 4 KiB pages.</summary>
    private const int DefaultPageOrders = 11;

    /// <summary>
    /// True when this machine's free page reporting is active: a virtio balloon that negotiated reporting is bound,
    /// and the reporting order is one the buddy allocator has (an order above it reports nothing; that is how it is
    /// suspended at run time). Reads three small sysfs/procfs files; false wherever one is missing or unreadable.
    /// </summary>
    internal static bool IsFreePageReportingActive(out string? why)
    {
        why = null;
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }

        string? order = MemoryFigures.TryReadFile(ReportingOrderPath);
        int orders = CountPageOrders(MemoryFigures.TryReadFile(BuddyInfoPath)) ?? DefaultPageOrders;
        if (!IsReportingOrderActive(order, orders) || !AnyBalloonReports(out string? device))
        {
            return false;
        }

        why = $"this virtual machine's balloon ({device}) reports free pages to the host (page_reporting_order {order!.Trim()}), " +
            "so freshly read page cache costs a host fault at first access; the sweep pays it";
        return true;
    }

    /// <summary>True when <paramref name="orderText"/> (page_reporting_order) is below <paramref name="pageOrders"/>, the number of buddy orders.</summary>
    internal static bool IsReportingOrderActive(string? orderText, int pageOrders) =>
        int.TryParse(orderText?.Trim(), System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int order) && order < pageOrders;

    /// <summary>True when a virtio <c>features</c> string has <see cref="ReportingFeatureBit"/> set.</summary>
    internal static bool HasReportingFeature(string? features)
    {
        string? bits = features?.Trim();
        return bits is not null && bits.Length > ReportingFeatureBit && bits[ReportingFeatureBit] == '1';
    }

    /// <summary>The number of buddy orders: the counts after the zone name on /proc/buddyinfo's first line; null when unreadable.</summary>
    internal static int? CountPageOrders(string? buddyInfo)
    {
        if (string.IsNullOrEmpty(buddyInfo))
        {
            return null;
        }

        // "Node 0, zone      DMA      0      0 ..." : everything after the zone's name is one count per order.
        string[] fields = buddyInfo.Split('\n')[0].Split(' ', StringSplitOptions.RemoveEmptyEntries);
        int zone = Array.IndexOf(fields, "zone");
        int orders = zone < 0 ? 0 : fields.Length - zone - 2;
        return orders > 0 ? orders : null;
    }

    private static bool AnyBalloonReports(out string? device)
    {
        device = null;
        try
        {
            if (!Directory.Exists(BalloonDriverPath))
            {
                return false;
            }

            foreach (string entry in Directory.EnumerateFileSystemEntries(BalloonDriverPath, "virtio*"))
            {
                if (HasReportingFeature(MemoryFigures.TryReadFile(Path.Combine(entry, "features"))))
                {
                    device = Path.GetFileName(entry);
                    return true;
                }
            }
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }

        return false;
    }
}
