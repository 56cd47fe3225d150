namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A real cgroup that caps its processes' reads from the disk under a file (v2 <c>io.max rbps</c>, else v1
/// <c>blkio.throttle.read_bps_device</c>), so reading that file cold takes as long as a test needs, however fast the
/// disk or the host's cache under a VM's disk is. Only child processes join it; removed on dispose.
/// </summary>
public sealed class ReadThrottle : IDisposable
{
    private static readonly Lazy<string?> Unavailable = new(() => CgroupDirectory.WhyUnavailable("io", () => Create(System.IO.Path.GetTempPath(), 1L << 30)));

    private ReadThrottle(string path)
    {
        Path = path;
    }

    /// <summary>Why no throttle can be made here (not Linux, not root, no io/blkio controller, a temp directory on no disk), or null.</summary>
    public static string? WhyUnavailable => Unavailable.Value;

    public string Path { get; }

    /// <summary>Write a process id here to move that process into the group.</summary>
    public string ProcsFile => System.IO.Path.Combine(Path, "cgroup.procs");

    /// <summary>A group whose reads from the disk under <paramref name="onDisk"/> (a file or directory) are capped at <paramref name="bytesPerSecond"/>.</summary>
    public static ReadThrottle Create(string onDisk, long bytesPerSecond)
    {
        string disk = DiskOf(onDisk);
        string path = CgroupDirectory.Create("io", out bool v2, v1Name: "blkio");
        try
        {
            File.WriteAllText(System.IO.Path.Combine(path, v2 ? "io.max" : "blkio.throttle.read_bps_device"),
                v2 ? $"{disk} rbps={bytesPerSecond}" : $"{disk} {bytesPerSecond}");
        }
        catch
        {
            Directory.Delete(path);
            throw;
        }

        return new ReadThrottle(path);
    }

    public void Dispose() => CgroupDirectory.RemoveWhenEmpty(Path);

    // The whole disk's major:minor (a throttle names a disk, not a partition of it).
    private static string DiskOf(string onDisk)
    {
        FileStatus status = FileStatus.Of(onDisk);
        string device = $"{status.Device >> 32}:{status.Device & 0xFFFF_FFFF}";
        string sys = $"/sys/dev/block/{device}";
        if (!Directory.Exists(sys))
        {
            throw new IOException($"{onDisk} is on device {device}, which is no block device (tmpfs, overlay?)");
        }

        return File.Exists(System.IO.Path.Combine(sys, "partition")) ? File.ReadAllText(System.IO.Path.Combine(sys, "..", "dev")).Trim() : device;
    }
}

/// <summary>A theory that needs a <see cref="ReadThrottle"/>; skipped, with the reason, where none can be made.</summary>
public sealed class ReadThrottleTheoryAttribute : TheoryAttribute
{
    public ReadThrottleTheoryAttribute()
    {
        if (ReadThrottle.WhyUnavailable is string why)
        {
            Skip = why;
        }
    }
}

/// <summary>A fact that needs a <see cref="ReadThrottle"/>; skipped, with the reason, where none can be made.</summary>
public sealed class ReadThrottleFactAttribute : FactAttribute
{
    public ReadThrottleFactAttribute()
    {
        if (ReadThrottle.WhyUnavailable is string why)
        {
            Skip = why;
        }
    }
}
