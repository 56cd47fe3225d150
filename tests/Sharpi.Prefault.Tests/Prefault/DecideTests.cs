namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>The gate and the RAM-fit heuristic as pure functions over injected figures.</summary>
public sealed class DecideTests
{
    private const long GiB = 1L << 30;
    private static readonly MemoryFigures Plenty = new(AvailableBytes: 64 * GiB, CgroupLimitBytes: null);

    [Fact]
    public void Decide_WithKillSwitch_NeverRuns()
    {
        PrefaultDecision d = MmapPrefault.Decide(PrefaultMode.Off, 1, 0, Plenty, RamGate.Always);

        Assert.False(d.ShouldRun);
        Assert.Equal(PrefaultMode.Off, d.Mode);
        Assert.Contains("switched off", d.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Decide_WithForce_RunsEvenWhenNothingFits()
    {
        PrefaultDecision d = MmapPrefault.Decide(PrefaultMode.Force, 100 * GiB, 0, new MemoryFigures(GiB, GiB));

        Assert.True(d.ShouldRun);
        Assert.False(d.IsPartial);
        Assert.Equal(long.MaxValue, d.BudgetBytes);
        Assert.Equal(PrefaultMode.Force, d.Mode);
    }

    [Fact]
    public void Decide_WithAuto_AppliesTheRamGate()
    {
        PrefaultDecision d = MmapPrefault.Decide(PrefaultMode.Auto, 10 * GiB, 0, new MemoryFigures(10 * GiB, null));

        Assert.True(d.ShouldRun);
        Assert.True(d.IsPartial);
        Assert.Equal(8 * GiB, d.BudgetBytes);
        Assert.Equal(PrefaultMode.Auto, d.Mode);
    }

    [Fact]
    public void Decide_WhenItFits_RunsInFull()
    {
        PrefaultDecision d = MmapPrefault.Decide(PrefaultMode.Auto, 8 * GiB, 0, new MemoryFigures(10 * GiB, null));

        Assert.True(d.ShouldRun);
        Assert.False(d.IsPartial);
        Assert.StartsWith("fits", d.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Decide_CountsPageCacheTheRegionsAlreadyOccupy_AsRoom()
    {
        // A second process mapping a model the first already loaded: 6 GiB to come, 6 GiB available. Alone,
        // 0.8 x 6 = 4.8 GiB does not fit; with the 12 GiB already cached as room, 0.8 x 18 = 14.4 GiB does.
        PrefaultDecision withoutCredit = MmapPrefault.Decide(PrefaultMode.Auto, 6 * GiB, 0, new MemoryFigures(6 * GiB, null));
        PrefaultDecision withCredit = MmapPrefault.Decide(PrefaultMode.Auto, 6 * GiB, 12 * GiB, new MemoryFigures(6 * GiB, null));

        Assert.True(withoutCredit.IsPartial);
        Assert.False(withCredit.IsPartial);
        Assert.True(withCredit.ShouldRun);
    }

    [Fact]
    public void Decide_TakesTheSmallerOfAvailableAndCgroupLimit()
    {
        PrefaultDecision d = MmapPrefault.Decide(PrefaultMode.Auto, 3 * GiB, 0, new MemoryFigures(64 * GiB, 2 * GiB));

        Assert.True(d.IsPartial);
        Assert.Equal((long)(0.8 * 2 * GiB), d.BudgetBytes);
        Assert.Contains("cgroup", d.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Decide_WithUnknownFigures_RunsAndSaysSo()
    {
        PrefaultDecision d = MmapPrefault.Decide(PrefaultMode.Auto, 1000 * GiB, 0, default);

        Assert.True(d.ShouldRun);
        Assert.False(d.IsPartial);
        Assert.Contains("unknown", d.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Decide_WithNoRoomAtAll_Skips()
    {
        PrefaultDecision d = MmapPrefault.Decide(PrefaultMode.Auto, GiB, 0, new MemoryFigures(0, null));

        Assert.False(d.ShouldRun);
        Assert.Contains("does not fit", d.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Decide_WithRamGateAlways_RunsEverything()
    {
        PrefaultDecision d = MmapPrefault.Decide(PrefaultMode.Auto, 100 * GiB, 0, new MemoryFigures(GiB, null), RamGate.Always);

        Assert.True(d.ShouldRun);
        Assert.False(d.IsPartial);
    }

    [Fact]
    public void Decide_UsesTheGivenFraction()
    {
        PrefaultDecision d = MmapPrefault.Decide(PrefaultMode.Auto, 10 * GiB, 0, new MemoryFigures(10 * GiB, null), ramFraction: 0.5);

        Assert.Equal(5 * GiB, d.BudgetBytes);
    }

    [Theory]
    [InlineData(0.0)]
    [InlineData(-0.1)]
    [InlineData(1.01)]
    [InlineData(double.NaN)]
    public void Decide_WithInvalidFraction_Throws(double fraction)
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => MmapPrefault.Decide(PrefaultMode.Auto, 1, 0, Plenty, ramFraction: fraction));
    }

    [Fact]
    public void Decide_WithUndefinedMode_Throws()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => MmapPrefault.Decide((PrefaultMode)42, 1, 0, Plenty));
    }

    [Fact]
    public void Decide_WithNegativeBytes_Throws()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => MmapPrefault.Decide(PrefaultMode.Auto, -1, 0, Plenty));
    }
}
