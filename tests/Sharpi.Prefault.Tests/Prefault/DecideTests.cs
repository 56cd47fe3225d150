namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// What <c>Decide</c> adds to the RAM-fit gate (whose figures RamGate/RamGateDecisionTests covers, for a prefault and a lock
/// alike): the operators' mode first, and checked arguments.
/// </summary>
public sealed class DecideTests
{
    private const long GiB = 1L << 30;
    private static readonly MemoryFigures Plenty = new(AvailableBytes: 64 * GiB, CgroupLimitBytes: null);

    [Fact]
    public void Decide_WithKillSwitch_NeverRuns()
    {
        RamGateDecision d = MmapPrefault.Decide(PrefaultMode.Off, 1, 0, Plenty, RamGate.Always);

        Assert.False(d.ShouldRun);
        Assert.Contains("switched off", d.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Decide_WithForce_RunsEvenWhenNothingFits()
    {
        RamGateDecision d = MmapPrefault.Decide(PrefaultMode.Force, 100 * GiB, 0, new MemoryFigures(GiB, GiB));

        Assert.True(d.ShouldRun);
        Assert.False(d.IsPartial);
        Assert.Equal(long.MaxValue, d.BudgetBytes);
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

    [Theory]
    [InlineData(-1L, null, null)]
    [InlineData(null, -1L, null)]
    [InlineData(null, 1L << 30, -1L)]
    public void Decide_WithANegativeMemoryFigure_Throws(long? available, long? limit, long? used)
    {
        var memory = new MemoryFigures(available, limit) { CgroupUsedBytes = used };
        var thrown = Assert.Throws<ArgumentOutOfRangeException>(() => MmapPrefault.Decide(PrefaultMode.Auto, 1, 0, memory));
        Assert.Equal("memory", thrown.ParamName);
    }

    [Fact]
    public void Decide_WithMemAvailableUnknown_StillKeepsToTheCgroupsRoom()
    {
        RamGateDecision decision = MmapPrefault.Decide(PrefaultMode.Auto, 10L << 30, 0, new MemoryFigures(null, 1L << 30), RamGate.FitsInRam, ramFraction: 0.8);

        Assert.True(decision.ShouldRun && decision.IsPartial, decision.Reason);
        Assert.Equal((long)(0.8 * (1L << 30)), decision.BudgetBytes);
    }
}
