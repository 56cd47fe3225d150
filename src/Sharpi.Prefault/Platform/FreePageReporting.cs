using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>
/// Whether this machine is a virtual machine that hands free memory back to its host (virtio-balloon free page
/// reporting, <c>VIRTIO_BALLOON_F_REPORTING</c>): Firecracker, QEMU and Cloud Hypervisor microVMs, where serverless
/// inference starts cold. There, every free block of <c>page_reporting_order</c> (2 MiB) or more is reported to the
/// host a few seconds after it is freed, and the host takes its memory back; the guest's first access to a page carved
/// from such a block then costs a fault on the host that the guest never counts.
/// </summary>
/// <remarks>
/// What it changes: a 2 MiB page-cache folio (what <c>MADV_HUGEPAGE</c> makes a fault read) can only come from such a
/// reported block, while 4 KiB folios come first from the smaller free fragments, which are never reported. Measured on
/// the development VM (2 cores, ext4, kernel 6.18, cold 1 GiB, each run 12 s after the eviction so the freed memory was
/// reported; bench-free probe, 8 threads): populate after the advice and a touch of every page 0.72-2.11 s at
/// read_ahead_kb 128, against 0.59 s for 4 KiB folios read ahead in windows (<c>MADV_WILLNEED</c>) and touched.
/// That is <c>Run</c>'s choice here, where the engine waits for the load; <c>Start</c>, beside the engine's init, keeps
/// the advice: 4 KiB folios cost the init the kernel's work for each of them (see <see cref="SweepMechanism.Choose"/>).
/// The balloon's negotiated features are read once per process (fixed at boot); <c>page_reporting_order</c> at every
/// look, since an operator may change it while an engine runs (a bench suspends reporting by raising it past the
/// largest block): read once, a look before the change decided every run after it.
/// </remarks>
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
