using System.Globalization;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// A virtual machine's free page reporting (virtio-balloon's VIRTIO_BALLOON_F_REPORTING). With it on, the pages an
/// eviction frees are handed back to the host, and the next row's page cache lands on memory the host must fault in
/// again: on this project's Firecracker VM a cold populate after a <c>none</c> row took 1.89 s with reporting on
/// (1.9 GiB reported during the run) and 0.66 s with it off, while the O_DIRECT limits, reading into buffers faulted
/// in once, never paid it. Bare metal has no such cost. The bench leaves it as the machine has it unless
/// <c>--free-page-reporting suspend</c> asks to turn it off for the run (said before, restored after); then it also
/// hands the VM back the blocks reported before (<see cref="FreeMemoryBacking"/>).
/// </summary>
internal static class FreePageReporting
{
    internal const string OrderPath = "/sys/module/page_reporting/parameters/page_reporting_order";

    private const string VirtioDevices = "/sys/bus/virtio/devices";

    /// <summary>The virtio device id of a balloon, and its feature bit that turns reporting on.</summary>
    private const string BalloonDeviceId = "0x0005";

    private const int ReportingFeatureBit = 5;

    /// <summary>Above the buddy allocator's largest order: no free block is ever large enough to be reported.</summary>
    private const int Off = 11;

    /// <summary>
    /// Whether free pages are reported to a host during the run: this machine reports them (<see cref="IsActive"/>) and
    /// <paramref name="suspension"/>, the run's <see cref="Suspend"/>, did not turn that off.
    /// </summary>
    internal static bool ReportsDuring(Suspension? suspension) => suspension is null && IsActive();

    /// <summary>
    /// Whether this machine reports free pages to a host: a virtio balloon that negotiated VIRTIO_BALLOON_F_REPORTING
    /// (its <c>features</c> file is one character per bit, bit 0 first).
    /// </summary>
    internal static bool IsActive()
    {
        if (!File.Exists(OrderPath) || !Directory.Exists(VirtioDevices))
        {
            return false;
        }

        foreach (string device in Directory.EnumerateDirectories(VirtioDevices))
        {
            try
            {
                if (File.ReadAllText(Path.Combine(device, "device")).Trim() == BalloonDeviceId &&
                    File.ReadAllText(Path.Combine(device, "features")).Trim() is { Length: > ReportingFeatureBit } features &&
                    features[ReportingFeatureBit] == '1')
                {
                    return true;
                }
            }
            catch (IOException)
            {
                // A device that went away while it was read reports nothing.
            }
        }

        return false;
    }

    /// <summary>
    /// With <paramref name="suspend"/>, turns reporting off until the returned override is disposed (or the process
    /// ends or is signalled), saying so before and that it is restored after; otherwise, and where it may not be
    /// changed, changes nothing and notes what the rows after an eviction pay where the machine reports.
    /// </summary>
    internal static Suspension? Suspend(bool suspend, List<string> notes, ProgressLine progress)
    {
        if (!IsActive())
        {
            if (suspend)
            {
                Say("--free-page-reporting suspend: this machine reports no free pages to a host; nothing to suspend.", notes, progress);
            }

            return null;
        }

        string order = File.ReadAllText(OrderPath).Trim();
        if (!suspend)
        {
            Say($"free page reporting is on (page_reporting_order {order}), as this VM ships: rows after an eviction read into memory " +
                "the host faults in again; --free-page-reporting suspend measures without it (root, restored after).", notes, progress);
            return null;
        }

        SysfsOverride? setting = SysfsOverride.TryCreate(OrderPath, out string? why);
        if (setting is null)
        {
            Say($"free page reporting is on and was not suspended ({why}).", notes, progress);
            return null;
        }

        try
        {
            progress.Note($"Suspending free page reporting: page_reporting_order {setting.Original} -> {Off} until the run ends.");
            setting.Set(Off);
            string back = OperatingSystem.IsLinux() ? BackFreeMemory(progress) : string.Empty;
            notes.Add($"free page reporting suspended for the run (page_reporting_order {setting.Original} -> {Off}, restored at the end){back}: " +
                "freed pages stay with the VM, as on bare metal.");
            return new Suspension(setting, progress);
        }
        catch (Exception e) when (e is IOException or BenchException)
        {
            // Mainline kernels cap the order at MAX_PAGE_ORDER (param_set_uint_minmax), so 11 is refused there.
            setting.Dispose();
            Say($"free page reporting is on and was not suspended (this kernel refused page_reporting_order {Off}: {e.Message}).", notes, progress);
            return null;
        }
    }

    /// <summary>Reporting turned off; disposing it restores the order and says so, once however often it is disposed.</summary>
    internal sealed class Suspension(SysfsOverride setting, ProgressLine progress) : IDisposable
    {
        private int _disposed;

        public void Dispose()
        {
            // A command restores it before printing its table and its `using` disposes it again at the end.
            if (Interlocked.Exchange(ref _disposed, 1) != 0)
            {
                return;
            }

            setting.Dispose();
            progress.Note($"Free page reporting restored (page_reporting_order {setting.Original}).");
        }
    }

    /// <summary>
    /// Faults in and frees the free memory once (<see cref="FreeMemoryBacking"/>), said before and after; the note's
    /// clause for the run's notes. A backing that runs out of memory or threads leaves the suspension in place and says so.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private static string BackFreeMemory(ProgressLine progress)
    {
        progress.Note("Faulting in and freeing the free memory once, so blocks the host took back before the suspension are the VM's again ...");
        string back;
        try
        {
            FreeMemoryBacking.Outcome outcome = FreeMemoryBacking.Run();
            string limited = outcome.Limit is null ? string.Empty : $", {outcome.Limit}";
            string so = outcome.Bytes >= outcome.FreeBytes * 4 / 5
                ? "so blocks the host took back before are mostly the VM's again"
                : "so blocks the host took back before may still cost the rows faults in the rest";
            back = outcome.Bytes > 0
                ? string.Create(CultureInfo.InvariantCulture,
                    $"; before the rows, {Sizes.Format(outcome.Bytes)} of the {Sizes.Format(outcome.FreeBytes)} free faulted in and freed ({outcome.Seconds:F1} s{limited}), {so}")
                : $"; the free memory was not faulted in before the rows{limited}, so blocks the host took back before may still cost them faults";
        }
        catch (Exception e) when (e is OutOfMemoryException or ThreadStartException or IOException)
        {
            back = $"; the free memory could not be faulted in first ({e.GetType().Name}: {e.Message}), so blocks the host took back before may still cost the rows faults";
        }

        progress.Note($"Free memory:{back[1..]}.");
        return back;
    }

    private static void Say(string note, List<string> notes, ProgressLine progress)
    {
        progress.Note(note);
        notes.Add(note);
    }
}
