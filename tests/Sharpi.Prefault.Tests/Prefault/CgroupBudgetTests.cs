using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>The RAM gate inside a memory cgroup: the room is the group's limit less what it already uses.</summary>
public sealed class CgroupBudgetTests
{
    private const long MiB = 1L << 20;

    [CgroupFact]
    public void ReadCgroup_InARealGroup_CountsWhatTheGroupCannotReclaim()
    {
        using MemoryCgroup group = MemoryCgroup.Create(512 * MiB);
        group.HoldUnreclaimable(380 * MiB);

        MemoryFigures.CgroupMemory? figures = MemoryFigures.ReadCgroup(group.ProcSelfCgroupText, KernelFile.TryReadText);

        Assert.NotNull(figures);
        Assert.Equal(512 * MiB, figures.Value.LimitBytes);
        Assert.InRange(figures.Value.UsedBytes, 370 * MiB, 430 * MiB);
    }

    [CgroupFact]
    public void Decide_InAGroupThatAlreadyUsesMostOfItsLimit_BudgetsOnlyTheRoomLeft()
    {
        using MemoryCgroup group = MemoryCgroup.Create(512 * MiB);
        group.HoldUnreclaimable(380 * MiB);
        MemoryFigures.CgroupMemory figures = MemoryFigures.ReadCgroup(group.ProcSelfCgroupText, KernelFile.TryReadText)!.Value;
        var memory = new MemoryFigures(AvailableBytes: 16L << 30, CgroupLimitBytes: figures.LimitBytes) { CgroupUsedBytes = figures.UsedBytes };

        PrefaultDecision decision = MmapPrefault.Decide(PrefaultMode.Auto, 1L << 30, 0, memory);

        // 0.8 x (512 - ~380) MiB, not 0.8 x 512 MiB = 409.6 MiB.
        Assert.True(decision.IsPartial);
        Assert.InRange(decision.BudgetBytes, (long)(0.8 * (512 - 430) * MiB), (long)(0.8 * (512 - 370) * MiB));
        Assert.Contains("in use", decision.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void ReadCgroup_TakesTheGroupWithTheLeastRoom_AndCountsItsFileCacheAsRoom()
    {
        var files = new Dictionary<string, string>
        {
            ["/sys/fs/cgroup/a/memory.max"] = "1073741824\n",
            ["/sys/fs/cgroup/a/memory.current"] = "943718400\n", // 900 MiB, of which 600 MiB page cache
            ["/sys/fs/cgroup/a/memory.stat"] = "anon 314572800\nactive_file 419430400\ninactive_file 209715200\n",
            ["/sys/fs/cgroup/a/b/memory.max"] = "2147483648\n",
            ["/sys/fs/cgroup/a/b/memory.current"] = "104857600\n",
        };

        MemoryFigures.CgroupMemory? group = MemoryFigures.ReadCgroup("0::/a/b\n", p => files.GetValueOrDefault(p));

        Assert.Equal(new MemoryFigures.CgroupMemory(1L << 30, 300 * MiB), group);
    }

    [Fact]
    public void ReclaimableFileBytes_PrefersV1HierarchicalTotals()
    {
        const string V1 = "cache 10\nactive_file 1\ninactive_file 2\ntotal_active_file 100\ntotal_inactive_file 200\n";

        Assert.Equal(300, MemoryFigures.ReclaimableFileBytes(V1));
        Assert.Equal(0, MemoryFigures.ReclaimableFileBytes(null));
    }
}
