using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>
/// Whether this machine is a virtual machine that hands free memory back to its host (virtio-balloon free page
/// reporting, <c>VIRTIO_BALLOON_F_REPORTING</c>): free blocks of <c>page_reporting_order</c> or more go back to the
/// host, and a page carved from one costs a host fault at its first access. It orders the trial's candidates
/// (<see cref="MechanismChoice.Order"/>). The balloon's features are read once (fixed at boot), the order at every look
/// (an operator may change it while an engine runs).
/// </summary>
internal static class FreePageReporting
{
    private const string VirtioDevices = "/sys/bus/virtio/devices";
    internal const string OrderPath = "/sys/module/page_reporting/parameters/page_reporting_order";
    private const int BalloonDeviceId = 5;  // VIRTIO_ID_BALLOON
    private const int ReportingFeature = 5; // VIRTIO_BALLOON_F_REPORTING
    private const int MaxPageOrder = 10;    // x86-64 and arm64 (4 KiB pages): a larger order never matches a free block

    private static readonly Lazy<bool> s_balloonReports = new(Probe);

    /// <summary>True where a virtio balloon negotiated free page reporting and the reporting order can match a free block now.</summary>
    internal static bool IsActive => s_balloonReports.Value && OrderCanMatch(KernelFile.TryReadText(OrderPath));

    /// <summary>
    /// The decision from what sysfs says: a device's id (<c>0x0005</c>), its negotiated feature bits (a string of 0 and
    /// 1, bit 0 first) and <c>page_reporting_order</c> (null where the module parameter is absent: reporting's default).
    /// </summary>
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

    /// <summary>Whether <c>page_reporting_order</c> can match a free block (null, absent: reporting's default).</summary>
    private static bool OrderCanMatch(string? order) =>
        order is null || !int.TryParse(order.Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out int o) || o <= MaxPageOrder;

    /// <summary>Whether a virtio balloon negotiated free page reporting (whatever the order says).</summary>
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
            // No virtio bus (bare metal, most containers' hosts): nothing reports free pages.
        }

        return false;
    }
}
