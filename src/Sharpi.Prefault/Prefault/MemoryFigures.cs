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
    /// <summary>
    /// What the limited cgroup already uses that the kernel cannot reclaim from it: its usage (v2 <c>memory.current</c>,
    /// v1 <c>memory.usage_in_bytes</c>) less its file-backed page cache (<c>active_file</c> + <c>inactive_file</c> in
    /// <c>memory.stat</c>). The room a prefault has in the group is the limit less this. Null when unknown or unlimited.
    /// </summary>
    public long? CgroupUsedBytes { get; init; }

    /// <summary>Reads the figures of this machine and this process's cgroup (Linux); elsewhere both are unknown.</summary>
    public static MemoryFigures Current()
    {
        if (!OperatingSystem.IsLinux())
        {
            return default;
        }

        long? available = ParseMemAvailable(KernelFile.TryReadText("/proc/meminfo"));
        CgroupMemory? group = ReadCgroup(KernelFile.TryReadText("/proc/self/cgroup"), KernelFile.TryReadText);
        return new MemoryFigures(available, group?.LimitBytes) { CgroupUsedBytes = group?.UsedBytes };
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

    /// <summary>The smallest cgroup limit of this process (see <see cref="ReadCgroup"/>), or null for none.</summary>
    internal static long? ReadCgroupLimit(string? procSelfCgroup, Func<string, string?> readFile) => ReadCgroup(procSelfCgroup, readFile)?.LimitBytes;

    /// <summary>
    /// Finds the cgroup that limits this process most from the text of /proc/self/cgroup: cgroup v2 (<c>0::/path</c>,
    /// <c>memory.max</c>, <c>memory.current</c>) or v1 (the <c>memory</c> controller's <c>memory.limit_in_bytes</c>,
    /// <c>memory.usage_in_bytes</c>), walking from the group up to the root. The group with the least room (limit
    /// less unreclaimable use) wins. <c>max</c>, or a v1 value beyond any real machine, means no limit.
    /// </summary>
    internal static CgroupMemory? ReadCgroup(string? procSelfCgroup, Func<string, string?> readFile)
    {
        if (procSelfCgroup is null)
        {
            return null;
        }

        CgroupMemory? best = null;
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
                best = Tighter(best, WalkUp("/sys/fs/cgroup", fields[2], CgroupV2, readFile));
            }
            else if (Array.IndexOf(fields[1].Split(','), "memory") >= 0)
            {
                best = Tighter(best, WalkUp("/sys/fs/cgroup/memory", fields[2], CgroupV1, readFile));
            }
        }

        return best;
    }

    /// <summary>A cgroup's limit and what it uses that cannot be reclaimed (0 when its usage is not readable).</summary>
    internal readonly record struct CgroupMemory(long LimitBytes, long UsedBytes)
    {
        internal long RoomBytes => Math.Max(0, LimitBytes - UsedBytes);
    }

    private readonly record struct CgroupFiles(string Limit, string Usage);

    private static readonly CgroupFiles CgroupV2 = new("memory.max", "memory.current");
    private static readonly CgroupFiles CgroupV1 = new("memory.limit_in_bytes", "memory.usage_in_bytes");

    private static CgroupMemory? WalkUp(string root, string groupPath, CgroupFiles files, Func<string, string?> readFile)
    {
        // Inside a container the group path is often "/" (cgroup namespace) or names a group not visible
        // in the container's mount; walk from the group to the root and take the tightest group found.
        CgroupMemory? best = null;
        string path = groupPath.TrimEnd('/');
        while (true)
        {
            string dir = $"{root}{path}/";
            if (ParseLimit(readFile(dir + files.Limit)) is long limit)
            {
                long used = ParseLimit(readFile(dir + files.Usage)) is long usage
                    ? Math.Max(0, usage - ReclaimableFileBytes(readFile(dir + "memory.stat")))
                    : 0;
                best = Tighter(best, new CgroupMemory(limit, used));
            }

            if (path.Length == 0)
            {
                return best;
            }

            int slash = path.LastIndexOf('/');
            path = slash <= 0 ? string.Empty : path[..slash];
        }
    }

    /// <summary>
    /// The group's file-backed page cache, which the kernel reclaims before it fails a charge: <c>active_file</c> +
    /// <c>inactive_file</c> (v1's hierarchical <c>total_</c> figures where present). Shared memory is not in them.
    /// </summary>
    internal static long ReclaimableFileBytes(string? memoryStat)
    {
        if (memoryStat is null)
        {
            return 0;
        }

        long active = 0, inactive = 0, totalActive = -1, totalInactive = -1;
        foreach (string line in memoryStat.Split('\n'))
        {
            int space = line.IndexOf(' ', StringComparison.Ordinal);
            if (space <= 0 || !long.TryParse(line.AsSpan(space + 1).Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out long value))
            {
                continue;
            }

            switch (line[..space])
            {
                case "active_file": active = value; break;
                case "inactive_file": inactive = value; break;
                case "total_active_file": totalActive = value; break;
                case "total_inactive_file": totalInactive = value; break;
            }
        }

        return totalActive >= 0 && totalInactive >= 0 ? totalActive + totalInactive : active + inactive;
    }

    private static CgroupMemory? Tighter(CgroupMemory? a, CgroupMemory? b) =>
        a is null ? b : b is null ? a : b.Value.RoomBytes < a.Value.RoomBytes ? b : a;

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
}
