namespace Sharpi.Prefault;

/// <summary>
/// The memory figures the RAM-fit heuristic weighs. <c>null</c> means unknown: an unknown figure never blocks a
/// prefault, and a known one still limits it (with both unknown, the prefault runs without a RAM limit).
/// </summary>
/// <param name="AvailableBytes"><c>MemAvailable</c> from <c>/proc/meminfo</c>: what the kernel can give without swapping.</param>
/// <param name="CgroupLimitBytes">The cgroup memory limit (v2 <c>memory.max</c>, v1 <c>memory.limit_in_bytes</c>), null when there is none.</param>
internal readonly record struct MemoryFigures(long? AvailableBytes, long? CgroupLimitBytes)
{
    /// <summary>
    /// What the limited cgroup already uses that the kernel cannot reclaim from it: its usage (v2 <c>memory.current</c>,
    /// v1 <c>memory.usage_in_bytes</c>) less its file-backed page cache (<c>active_file</c> + <c>inactive_file</c> in
    /// <c>memory.stat</c>). The room a prefault has in the group is the limit less this. Null when unknown or unlimited.
    /// </summary>
    internal long? CgroupUsedBytes { get; init; }

    /// <summary>Reads the figures of this machine and this process's cgroup (Linux); elsewhere both are unknown.</summary>
    internal static MemoryFigures Current()
    {
        if (!OperatingSystem.IsLinux())
        {
            return default;
        }

        long? available = ProcMemInfo.ReadAvailable();
        CgroupMemory? group = CgroupMemory.ReadCurrent();
        return new MemoryFigures(available, group?.LimitBytes) { CgroupUsedBytes = group?.UsedBytes };
    }
}
