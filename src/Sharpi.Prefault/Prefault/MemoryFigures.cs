using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>
/// The memory figures the RAM-fit heuristic weighs. <c>null</c> means unknown (and an unknown figure never
/// blocks a prefault).
/// </summary>
/// <param name="AvailableBytes"><c>MemAvailable</c> from <c>/proc/meminfo</c>: what the kernel can give without swapping.</param>
/// <param name="CgroupLimitBytes">The cgroup memory limit (v2 <c>memory.max</c>, v1 <c>memory.limit_in_bytes</c>), null when there is none.</param>
public readonly record struct MemoryFigures(long? AvailableBytes, long? CgroupLimitBytes)
{
    /// <summary>Reads the figures of this machine and this process's cgroup (Linux); elsewhere both are unknown.</summary>
    public static MemoryFigures Current()
    {
        if (!OperatingSystem.IsLinux())
        {
            return default;
        }

        long? available = ParseMemAvailable(TryReadFile("/proc/meminfo"));
        long? limit = ReadCgroupLimit(TryReadFile("/proc/self/cgroup"), TryReadFile);
        return new MemoryFigures(available, limit);
    }

    /// <summary>Parses <c>MemAvailable</c> (kB) from the text of /proc/meminfo; null when absent.</summary>
    internal static long? ParseMemAvailable(string? meminfo)
    {
        if (meminfo is null)
        {
            return null;
        }

        foreach (string line in meminfo.Split('\n'))
        {
            if (!line.StartsWith("MemAvailable:", StringComparison.Ordinal))
            {
                continue;
            }

            string[] parts = line["MemAvailable:".Length..].Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (parts.Length >= 1 && long.TryParse(parts[0], NumberStyles.None, CultureInfo.InvariantCulture, out long kb))
            {
                return kb * 1024;
            }
        }

        return null;
    }

    /// <summary>
    /// Finds this process's memory limit from the text of /proc/self/cgroup: cgroup v2 (<c>0::/path</c>, the
    /// smallest <c>memory.max</c> from the group up to the root) or v1 (the <c>memory</c> controller's
    /// <c>memory.limit_in_bytes</c>). <c>max</c>, or a v1 value beyond any real machine, means no limit.
    /// </summary>
    internal static long? ReadCgroupLimit(string? procSelfCgroup, Func<string, string?> readFile)
    {
        if (procSelfCgroup is null)
        {
            return null;
        }

        long? best = null;
        foreach (string rawLine in procSelfCgroup.Split('\n'))
        {
            string line = rawLine.Trim();
            string[] fields = line.Split(':', 3);
            if (fields.Length != 3)
            {
                continue;
            }

            if (fields[0] == "0" && fields[1].Length == 0)
            {
                best = Min(best, WalkUp("/sys/fs/cgroup", fields[2], "memory.max", readFile));
            }
            else if (Array.IndexOf(fields[1].Split(','), "memory") >= 0)
            {
                best = Min(best, WalkUp("/sys/fs/cgroup/memory", fields[2], "memory.limit_in_bytes", readFile));
            }
        }

        return best;
    }

    private static long? WalkUp(string root, string groupPath, string fileName, Func<string, string?> readFile)
    {
        // Inside a container the group path is often "/" (cgroup namespace) or names a group not visible
        // in the container's mount; walk from the group to the root and take the smallest limit found.
        long? best = null;
        string path = groupPath.TrimEnd('/');
        while (true)
        {
            best = Min(best, ParseLimit(readFile($"{root}{path}/{fileName}")));
            if (path.Length == 0)
            {
                return best;
            }

            int slash = path.LastIndexOf('/');
            path = slash <= 0 ? string.Empty : path[..slash];
        }
    }

    private static long? ParseLimit(string? text)
    {
        if (text is null)
        {
            return null;
        }

        text = text.Trim();
        if (text.Length == 0 || text == "max")
        {
            return null;
        }

        // cgroup v1 reports "no limit" as a page-rounded LONG_MAX; anything at or past 2^60 is no limit.
        return long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out long value) && value < (1L << 60)
            ? value
            : null;
    }

    private static long? Min(long? a, long? b) => a is null ? b : b is null ? a : Math.Min(a.Value, b.Value);

    private static string? TryReadFile(string path)
    {
        try
        {
            return File.Exists(path) ? File.ReadAllText(path) : null;
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
