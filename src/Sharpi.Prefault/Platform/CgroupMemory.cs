using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>The memory limit and unreclaimable use (0: unreadable) of the cgroup leaving this process the least room.</summary>
internal readonly record struct CgroupMemory(long LimitBytes, long UsedBytes)
{
    internal const string ProcSelfCgroupPath = "/proc/self/cgroup";

    internal long RoomBytes => Math.Max(0, LimitBytes - UsedBytes);

    /// <summary>From the real files; null for none.</summary>
    internal static CgroupMemory? ReadCurrent() => Read(KernelFile.TryReadText(ProcSelfCgroupPath), KernelFile.TryReadText);

    /// <summary>The group limiting this process most, from its group in <paramref name="procSelfCgroup"/> up to the root (v2 or v1).</summary>
    internal static CgroupMemory? Read(string? procSelfCgroup, Func<string, string?> readFile)
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

    private readonly record struct CgroupFiles(string Limit, string Usage);

    private static readonly CgroupFiles CgroupV2 = new("memory.max", "memory.current");
    private static readonly CgroupFiles CgroupV1 = new("memory.limit_in_bytes", "memory.usage_in_bytes");

    private static CgroupMemory? WalkUp(string root, string groupPath, CgroupFiles files, Func<string, string?> readFile)
    {
        // In a container the group path is often "/" or not visible: walk to the root, take the tightest.
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

    /// <summary>The group's file page cache, reclaimed before a charge fails.</summary>
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

        // v1's "no limit" is a page-rounded LONG_MAX: 2^60 and up is no limit.
        return long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out long value) && value < (1L << 60)
            ? value
            : null;
    }
}
