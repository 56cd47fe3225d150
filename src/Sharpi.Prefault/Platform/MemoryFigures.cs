namespace Sharpi.Prefault;

/// <summary>The figures the RAM-fit gate weighs; null is unknown, and an unknown figure never blocks.</summary>
internal readonly record struct MemoryFigures(long? AvailableBytes, long? CgroupLimitBytes)
{
    /// <summary>The limiting cgroup's unreclaimable use (usage less file cache); null when unknown or unlimited.</summary>
    internal long? CgroupUsedBytes { get; init; }

    /// <summary>This machine's figures (Linux); unknown elsewhere.</summary>
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
