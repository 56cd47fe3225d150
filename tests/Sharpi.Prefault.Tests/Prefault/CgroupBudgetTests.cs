namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>The RAM gate inside a memory cgroup: the room is the group's limit less what it already uses.</summary>
public sealed class CgroupBudgetTests
{
    private const long MiB = 1L << 20;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.MemoryCgroup))]
    public void Decide_InAGroupThatAlreadyUsesMostOfItsLimit_BudgetsOnlyTheRoomLeft()
    {
        using MemoryCgroup group = MemoryCgroup.Create(512 * MiB);
        group.HoldUnreclaimable(380 * MiB);
        CgroupMemory figures = CgroupMemory.Read(group.ProcSelfCgroupText, KernelFile.TryReadText)!.Value;
        var memory = new MemoryFigures(AvailableBytes: 16L << 30, CgroupLimitBytes: figures.LimitBytes) { CgroupUsedBytes = figures.UsedBytes };

        RamGateDecision decision = MmapPrefault.Decide(PrefaultMode.Auto, 1L << 30, 0, memory);

        // 0.8 x (512 - ~380) MiB, not 0.8 x 512 MiB = 409.6 MiB.
        Assert.True(decision.IsPartial);
        Assert.InRange(decision.BudgetBytes, (long)(0.8 * (512 - 430) * MiB), (long)(0.8 * (512 - 370) * MiB));
        Assert.Contains("in use", decision.Reason, StringComparison.Ordinal);
    }
}
