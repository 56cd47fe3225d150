namespace Sharpi.Prefault;

/// <summary>
/// The memory figures the RAM-fit gate weighs, null when unknown: an unknown figure never blocks, a known one limits
/// (MemAvailable; the cgroup's limit, null when none).
/// </summary>
internal readonly record struct MemoryFigures(long? AvailableBytes, long? CgroupLimitBytes)
{
    /// <summary>
    /// What the limiting cgroup uses that cannot be reclaimed: usage less file page cache (the room is limit less this).
    /// Null when unknown or unlimited.
    /// </summary>
    internal long? CgroupUsedBytes { get; init; }

    /// <summary>This machine's and this cgroup's figures (Linux); unknown elsewhere.</summary>
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
