namespace Sharpi.Prefault.Tests.RamFit; // (the folder's name, RamGate, is the enum's)

/// <summary>
/// The RAM-fit gate prefault and lock share: one decision over the same figures, and one cut of an ordered list of
/// (length, resident) items to the budget.
/// </summary>
public sealed class RamGateDecisionTests
{
    private const long GiB = 1L << 30;
    private const long Page = 4096;

    /// <summary>bytes asked, already resident, MemAvailable, cgroup limit, cgroup use, gate, fraction; then the decision: full, partial or none, the budget (-1: any), a word of its reason.</summary>
    public static TheoryData<long, long, long?, long?, long?, RamGate, double, string, long, string> Figures => new()
    {
        // Part fits: 0.8 x 10 GiB.
        { 10 * GiB, 0, 10 * GiB, null, null, RamGate.FitsInRam, 0.8, "partial", 8 * GiB, "" },
        { 8 * GiB, 0, 10 * GiB, null, null, RamGate.FitsInRam, 0.8, "full", -1, "fits" },
        { 10 * GiB, 0, 10 * GiB, null, null, RamGate.FitsInRam, 0.5, "partial", 5 * GiB, "" },
        // A second process mapping a model the first already loaded: 6 GiB to come, 6 GiB available. Alone, 0.8 x 6 =
        // 4.8 GiB does not fit; with the 12 GiB already cached as room, 0.8 x 18 = 14.4 GiB does.
        { 6 * GiB, 0, 6 * GiB, null, null, RamGate.FitsInRam, 0.8, "partial", -1, "" },
        { 6 * GiB, 12 * GiB, 6 * GiB, null, null, RamGate.FitsInRam, 0.8, "full", -1, "" },
        // The smaller of MemAvailable and the cgroup's room (its limit less what it uses).
        { 3 * GiB, 0, 64 * GiB, 2 * GiB, null, RamGate.FitsInRam, 0.8, "partial", (long)(0.8 * 2 * GiB), "cgroup" },
        { 3 * GiB, GiB, 64 * GiB, 2 * GiB, null, RamGate.FitsInRam, 0.5, "partial", -1, "cgroup" },
        { 3 * GiB, 0, 64 * GiB, 4 * GiB, 3 * GiB, RamGate.FitsInRam, 0.8, "partial", (long)(0.8 * GiB), "cgroup" },
        { GiB, 0, 0, null, null, RamGate.FitsInRam, 0.8, "none", 0, "does not fit" },
        // Unknown figures never block.
        { 1000 * GiB, 0, null, null, null, RamGate.FitsInRam, 0.8, "full", long.MaxValue, "unknown" },
        { 100 * GiB, 0, GiB, GiB, null, RamGate.Always, 0.8, "full", long.MaxValue, "" },
    };

    [Theory]
    [MemberData(nameof(Figures))]
    public void LockAndPrefault_ForTheSameFigures_GiveTheSameDecisionAndBudget(
        long bytes, long resident, long? available, long? limit, long? used, RamGate gate, double fraction,
        string outcome, long budget, string reasonWord)
    {
        var memory = new MemoryFigures(available, limit) { CgroupUsedBytes = used };

        RamGateDecision prefault = MmapPrefault.Decide(PrefaultMode.Auto, bytes, resident, memory, gate, fraction);
        RamGateDecision locked = MmapLock.Decide(bytes, resident, memory, new LockOptions { RamGate = gate, RamFraction = fraction });

        Assert.Equal(prefault, locked);
        Assert.Equal(outcome, prefault switch { { ShouldRun: false } => "none", { IsPartial: true } => "partial", _ => "full" });
        Assert.True(budget < 0 || budget == prefault.BudgetBytes, $"budget {prefault.BudgetBytes}, expected {budget}");
        Assert.Contains(reasonWord, prefault.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Cut_KeepsTheOrderGiven_EvenWhereALaterItemWouldFit()
    {
        BudgetCut cut = RamGateDecision.Cut([new(100, 0), new(10, 0), new(10, 0)], budget: 50);

        Assert.Equal(new BudgetCut(0, 50), cut);
        Assert.Equal([50L, 0, 0], Kept(cut, 100, 10, 10));
    }

    [Fact]
    public void Cut_KeepsTheItemThatCrossesTheBudget_ForTheBytesLeft_AndNothingAfterIt()
    {
        BudgetCut cut = RamGateDecision.Cut([new(100, 0), new(100, 0), new(100, 0)], budget: 150);

        Assert.Equal(new BudgetCut(1, 50), cut);
        Assert.Equal(2, cut.ItemsKept);
        Assert.Equal([100L, 50, 0], Kept(cut, 100, 100, 100));
    }

    [Fact]
    public void Cut_WithAPageGranularity_RoundsTheCrossingPartDown_ToNothingWhenLessThanAPageIsLeft()
    {
        BudgetCut onePage = RamGateDecision.Cut([new(2 * Page, 0), new(2 * Page, 0)], budget: (3 * Page) + 100, Page);
        BudgetCut lessThanAPage = RamGateDecision.Cut([new(2 * Page, 0), new(2 * Page, 0)], budget: (2 * Page) + 100, Page);

        Assert.Equal(new BudgetCut(1, Page), onePage);
        Assert.Equal(new BudgetCut(1, 0), lessThanAPage);
        Assert.Equal(1, lessThanAPage.ItemsKept);
    }

    [Fact]
    public void Cut_ResidentBytes_OnlyMakeAnItemCheaper()
    {
        // 60 of the first item's 100 bytes are resident: it costs 40, so the second gets the other 40.
        BudgetCut withResidency = RamGateDecision.Cut([new(100, 60), new(100, 0)], budget: 80);
        BudgetCut withoutResidency = RamGateDecision.Cut([new(100, 0), new(100, 0)], budget: 80);

        Assert.Equal(new BudgetCut(1, 40), withResidency);
        Assert.Equal(new BudgetCut(0, 80), withoutResidency);

        // The part kept of an item that crosses the budget is charged as if none of it were resident (where its
        // resident pages lie is unknown): never more than the budget, whatever its residency.
        Assert.Equal(new BudgetCut(0, 30), RamGateDecision.Cut([new(100, 50)], budget: 30));
        for (long budget = 0; budget <= 200; budget += 10)
        {
            long with = Kept(RamGateDecision.Cut([new(100, 60), new(100, 30)], budget), 100, 100).Sum();
            long without = Kept(RamGateDecision.Cut([new(100, 0), new(100, 0)], budget), 100, 100).Sum();
            Assert.True(with >= without, $"budget {budget}: {with} kept with resident bytes, {without} without");
        }
    }

    [Fact]
    public void Cut_WithinTheBudget_KeepsEverything_AndWithNoBudget_Nothing()
    {
        BudgetItem[] items = [new(100, 0), new(100, 100), new(100, 0)];

        Assert.Equal(new BudgetCut(3, 0), RamGateDecision.Cut(items, budget: 200));
        Assert.Equal(new BudgetCut(0, 0), RamGateDecision.Cut(items, budget: 0));
    }

    private static long[] Kept(BudgetCut cut, params long[] lengths) => [.. lengths.Select((length, i) => cut.KeptLength(i, length))];
}
