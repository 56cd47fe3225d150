using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>Whether a virtio balloon reports free pages to its host; features read once, the order at every look.</summary>
internal static class FreePageReporting
{
    private const string VirtioDevices = "/sys/bus/virtio/devices";
    internal const string OrderPath = "/sys/module/page_reporting/parameters/page_reporting_order";
    private const int BalloonDeviceId = 5;  // VIRTIO_ID_BALLOON
    private const int ReportingFeature = 5; // VIRTIO_BALLOON_F_REPORTING
    private const int MaxPageOrder = 10;    // 4 KiB pages

    private static readonly Lazy<bool> s_balloonReports = new(Probe);

    internal static bool IsActive => s_balloonReports.Value && OrderCanMatch(KernelFile.TryReadText(OrderPath));

    /// <summary>Feature bits are bit 0 first; a null order is the default.</summary>
    internal static bool IsReporting(string? deviceId, string? features, string? order)
    {
        if (deviceId is null || features is null
            || !int.TryParse(deviceId.Trim().Replace("0x", string.Empty, StringComparison.Ordinal), NumberStyles.HexNumber, CultureInfo.InvariantCulture, out int id)
            || id != BalloonDeviceId)
        {
            return false;
        }

        string bits = features.Trim();
        if (bits.Length <= ReportingFeature || bits[ReportingFeature] != '1')
        {
            return false;
        }

        return OrderCanMatch(order);
    }

    private static bool OrderCanMatch(string? order) =>
        order is null || !int.TryParse(order.Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out int o) || o <= MaxPageOrder;

    private static bool Probe()
    {
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }

        try
        {
            foreach (string device in Directory.EnumerateDirectories(VirtioDevices))
            {
                if (IsReporting(KernelFile.TryReadText(Path.Combine(device, "device")), KernelFile.TryReadText(Path.Combine(device, "features")), order: null))
                {
                    return true;
                }
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // No virtio bus.
        }

        return false;
    }
}
