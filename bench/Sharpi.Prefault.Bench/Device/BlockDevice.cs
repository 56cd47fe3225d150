using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The mount and block device that hold a file, from <c>/proc/self/mountinfo</c> (longest mount point that contains
/// it; its major:minor leads to <c>/sys/dev/block</c>, and a partition to its disk's <c>queue/</c>). btrfs shows an
/// anonymous major:minor there, so its disk comes from the mount source (<c>/dev/loop3</c>), and its read-ahead is its
/// own: the filesystem reads ahead through its own backing device info (<c>/sys/fs/btrfs/UUID/bdi</c>, at least 4 MiB),
/// not through the disk's queue.
/// </summary>
/// <param name="FileSystem">The filesystem type (ext4, xfs, tmpfs...).</param>
/// <param name="Source">The mount source (<c>/dev/vda</c>).</param>
/// <param name="Name">The disk's kernel name (<c>vda</c>, <c>nvme0n1</c>), or null where the filesystem has no block device.</param>
internal sealed record BlockDevice(string FileSystem, string Source, string? Name)
{
    /// <summary>The disk's queue directory in sysfs, or null.</summary>
    internal string? QueueDirectory => Name is null ? null : $"/sys/block/{Name}/queue";

    /// <summary>Where the read-ahead that applies to the filesystem's files is set: the btrfs bdi's, else the disk queue's.</summary>
    internal string ReadAheadPath => BdiReadAheadPath ?? $"{QueueDirectory}/read_ahead_kb";

    internal int? ReadAheadKb => QueueDirectory is null ? null : ReadIntAt(ReadAheadPath);

    /// <summary>Whose read_ahead_kb <see cref="ReadAheadPath"/> is, for messages: "vda", "loop3's btrfs filesystem".</summary>
    internal string ReadAheadOwner => BdiReadAheadPath is null ? Name ?? "no disk" : $"{Name}'s btrfs filesystem";

    /// <summary>A btrfs filesystem's own read_ahead_kb, or null where the disk's queue sets it.</summary>
    internal string? BdiReadAheadPath { get; init; }

    internal int? MaxSectorsKb => ReadInt("max_sectors_kb");

    internal static BlockDevice Of(string path)
    {
        string? mountInfo = TryRead("/proc/self/mountinfo");
        if (mountInfo is null)
        {
            return new BlockDevice("unknown filesystem", "unknown", null);
        }

        string full = Path.GetFullPath(path);
        string[]? best = null;
        int bestLength = -1;
        foreach (string line in mountInfo.Split('\n'))
        {
            // id parent major:minor root mount-point options [optional...] - fstype source super-options
            string[] fields = line.Split(' ');
            int dash = Array.IndexOf(fields, "-");
            if (fields.Length < 5 || dash < 0 || dash + 2 >= fields.Length)
            {
                continue;
            }

            string mountPoint = fields[4].Replace("\\040", " ", StringComparison.Ordinal);
            bool contains = mountPoint == "/" || full == mountPoint || full.StartsWith(mountPoint + "/", StringComparison.Ordinal);
            if (contains && mountPoint.Length >= bestLength)
            {
                bestLength = mountPoint.Length;
                best = [fields[2], fields[dash + 1], fields[dash + 2]];
            }
        }

        if (best is null)
        {
            return new BlockDevice("unknown filesystem", "unknown", null);
        }

        string? name = DiskName(best[0]) ?? SourceDiskName(best[2]);
        return new BlockDevice(best[1], best[2], name) { BdiReadAheadPath = best[1] == "btrfs" && name is not null ? BtrfsReadAheadPath(name) : null };
    }

    /// <summary>The disk behind a mount source such as <c>/dev/loop3</c>, where the major:minor named none (btrfs).</summary>
    private static string? SourceDiskName(string source)
    {
        if (!source.StartsWith("/dev/", StringComparison.Ordinal))
        {
            return null;
        }

        string name = Path.GetFileName(source);
        return File.Exists($"/sys/class/block/{name}/dev") ? DiskName(File.ReadAllText($"/sys/class/block/{name}/dev").Trim()) : null;
    }

    /// <summary>The read_ahead_kb of the mounted btrfs filesystem that has <paramref name="disk"/> among its devices.</summary>
    private static string? BtrfsReadAheadPath(string disk)
    {
        const string Filesystems = "/sys/fs/btrfs";
        if (!Directory.Exists(Filesystems))
        {
            return null;
        }

        foreach (string filesystem in Directory.EnumerateDirectories(Filesystems))
        {
            if (Directory.Exists(Path.Combine(filesystem, "devices", disk)) && File.Exists(Path.Combine(filesystem, "bdi", "read_ahead_kb")))
            {
                return Path.Combine(filesystem, "bdi", "read_ahead_kb");
            }
        }

        return null;
    }

    /// <summary>The disk behind major:minor: the device itself, or for a partition the disk that holds it.</summary>
    private static string? DiskName(string majorMinor)
    {
        try
        {
            var link = new DirectoryInfo($"/sys/dev/block/{majorMinor}");
            if (!link.Exists)
            {
                return null;
            }

            string resolved = link.ResolveLinkTarget(returnFinalTarget: true)?.FullName ?? link.FullName;
            if (File.Exists(Path.Combine(resolved, "partition")))
            {
                resolved = Path.GetDirectoryName(resolved)!;
            }

            string name = Path.GetFileName(resolved);
            return Directory.Exists($"/sys/block/{name}/queue") ? name : null;
        }
        catch (IOException)
        {
            return null;
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }

    private int? ReadInt(string attribute) => QueueDirectory is null ? null : ReadIntAt($"{QueueDirectory}/{attribute}");

    private static int? ReadIntAt(string path) =>
        TryRead(path) is { } text && int.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out int value) ? value : null;

    /// <summary>A sysfs or procfs file's text, trimmed; null when it is missing or unreadable.</summary>
    internal static string? TryRead(string path)
    {
        try
        {
            return File.Exists(path) ? File.ReadAllText(path).Trim() : null;
        }
        catch (IOException)
        {
            return null;
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }
}
