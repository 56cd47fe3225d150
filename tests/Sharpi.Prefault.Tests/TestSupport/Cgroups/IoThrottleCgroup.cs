using System.Globalization;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A real cgroup made for one test that caps how fast its processes read from the block device holding a folder (the
/// system temp folder unless told): v2's <c>io.max</c> (<c>rbps</c>) where the root enables the io controller, else
/// v1's <c>blkio.throttle.read_bps_device</c>; removed on dispose. Only child processes join it (through
/// <see cref="ProcsFile"/>), never the test host.
/// </summary>
/// <remarks>
/// A sweep of a cold file then takes as long as the cap says, however fast the disk is or however busy the machine:
/// a test that must act while a sweep runs (send a signal, see a progress line before the end) has the time it needs
/// without a file the size of a disk's cache. The kernel charges a page-cache read to the group of the task that
/// faults or reads it (the sweep's populate and its read-ahead are), so the cap holds for mapped reads too.
/// </remarks>
public sealed class IoThrottleCgroup : IDisposable
{
    private static readonly Lazy<string?> Unavailable = new(() =>
        CgroupDirectory.WhyUnavailable("an io (blkio) cgroup that throttles the temp folder's device", () => Create(64 * TestFile.MiB)));

    private IoThrottleCgroup(string path, string device, long readBytesPerSecond)
    {
        Path = path;
        Device = device;
        ReadBytesPerSecond = readBytesPerSecond;
    }

    /// <summary>Why no group can throttle the temp folder's device here (not Linux, not root, no io/blkio controller, not a block device), or null.</summary>
    public static string? WhyUnavailable => Unavailable.Value;

    public string Path { get; }

    /// <summary>The throttled block device, as <c>MAJOR:MINOR</c> (the whole disk where the folder is on a partition).</summary>
    public string Device { get; }

    public long ReadBytesPerSecond { get; }

    /// <summary>Write a process id here to move that process into the group.</summary>
    public string ProcsFile => System.IO.Path.Combine(Path, "cgroup.procs");

    /// <summary>A group whose processes read from the device holding <paramref name="folder"/> at most <paramref name="readBytesPerSecond"/>.</summary>
    public static IoThrottleCgroup Create(long readBytesPerSecond, string? folder = null)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(readBytesPerSecond);
        string device = BlockDeviceOf(folder ?? System.IO.Path.GetTempPath());
        (string path, bool v2) = CgroupDirectory.Create("io", "blkio");
        try
        {
            string bps = readBytesPerSecond.ToString(CultureInfo.InvariantCulture);
            string rule = v2 ? System.IO.Path.Combine(path, "io.max") : System.IO.Path.Combine(path, "blkio.throttle.read_bps_device");
            File.WriteAllText(rule, v2 ? $"{device} rbps={bps}" : $"{device} {bps}");
            if (!File.ReadAllText(rule).Contains(device, StringComparison.Ordinal))
            {
                throw new IOException($"{rule} did not keep the rule for {device}");
            }
        }
        catch
        {
            CgroupDirectory.RemoveWhenEmpty(path);
            throw;
        }

        return new IoThrottleCgroup(path, device, readBytesPerSecond);
    }

    public void Dispose()
    {
        // The group is empty once its children exit.
        CgroupDirectory.RemoveWhenEmpty(Path);
    }

    /// <summary>
    /// The block device that holds <paramref name="folder"/>, as <c>MAJOR:MINOR</c>: the whole disk for a partition
    /// (throttle rules name disks). A folder on no block device (tmpfs, overlayfs, btrfs's own device numbers) has none.
    /// </summary>
    private static string BlockDeviceOf(string folder)
    {
        ulong device = FileStatus.Of(folder).Device;
        string number = $"{device >> 32}:{device & 0xFFFF_FFFF}";
        string sysfs = $"/sys/dev/block/{number}";
        if (!Directory.Exists(sysfs))
        {
            throw new IOException($"{folder} is on device {number}, which is not a block device (tmpfs, overlayfs or btrfs): there is no disk to throttle");
        }

        if (File.Exists(System.IO.Path.Combine(sysfs, "partition")))
        {
            // /sys/dev/block/M:m links to .../block/vda/vda1: the disk is the folder above.
            string partition = new DirectoryInfo(sysfs).ResolveLinkTarget(returnFinalTarget: true)?.FullName ?? sysfs;
            return File.ReadAllText(System.IO.Path.Combine(Directory.GetParent(partition)!.FullName, "dev")).Trim();
        }

        return number;
    }
}
