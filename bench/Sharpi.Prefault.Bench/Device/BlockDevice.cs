using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The mount and block device that hold a file, from <c>/proc/self/mountinfo</c> (longest mount point that contains
/// it; its major:minor leads to <c>/sys/dev/block</c>, and a partition to its disk's <c>queue/</c>).
/// </summary>
/// <param name="FileSystem">The filesystem type (ext4, xfs, tmpfs...).</param>
/// <param name="Source">The mount source (<c>/dev/vda</c>).</param>
/// <param name="Name">The disk's kernel name (<c>vda</c>, <c>nvme0n1</c>), or null where the filesystem has no block device.</param>
internal sealed record BlockDevice(string FileSystem, string Source, string? Name)
{
    /// <summary>The disk's queue directory in sysfs, or null.</summary>
    internal string? QueueDirectory => Name is null ? null : $"/sys/block/{Name}/queue";

    internal string ReadAheadPath => $"{QueueDirectory}/read_ahead_kb";

    internal int? ReadAheadKb => ReadInt("read_ahead_kb");

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

        return best is null ? new BlockDevice("unknown filesystem", "unknown", null) : new BlockDevice(best[1], best[2], DiskName(best[0]));
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

    private int? ReadInt(string attribute) =>
        QueueDirectory is not null && TryRead($"{QueueDirectory}/{attribute}") is { } text
            && int.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out int value) ? value : null;

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
