using System.Diagnostics;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>The trial rule with injected costs (<see cref="MechanismTrial"/>): no sweep, no clock.</summary>
public sealed class MechanismTrialTests
{
    private const long MiB = 1024 * 1024;

    [Fact]
    public void Pick_TakesTheFastestCandidate()
    {
        double[] rates = MechanismTrial.Rates([8 * MiB, 8 * MiB, 8 * MiB], [Ticks(10 * 8 * MiB), Ticks(4 * 8 * MiB), Ticks(8 * 8 * MiB)], [0, 0, 0]);

        Assert.Equal(1, MechanismTrial.Pick(rates));
        Assert.Equal(10.0, rates[0], 3);
        Assert.Equal(4.0, rates[1], 3);
    }

    [Fact]
    public void Pick_KeepsTheFirstGuess_WhenTrialsTieWithinNoise()
    {
        Assert.Equal(0, MechanismTrial.Pick([10.0, 9.5]));
        Assert.Equal(0, MechanismTrial.Pick([10.0, 10.0, 9.1]));
        Assert.Equal(2, MechanismTrial.Pick([10.0, 10.0, 8.9]));
    }

    [Fact]
    public void Pick_WithTheFirstUntried_TakesTheFastestTried() =>
        Assert.Equal(2, MechanismTrial.Pick([double.NaN, 5.0, 3.0]));

    [Fact]
    public void Rates_CountWhatTheEnginesFirstAccessWouldAdd()
    {
        // Equal sweeps; the second leaves 4 KiB mappings whose first access costs the engine 2 ns a byte more.
        double[] rates = MechanismTrial.Rates([4 * MiB, 4 * MiB], [Ticks(4 * MiB), Ticks(4 * MiB)], [0, 2.0 * 4 * MiB]);

        Assert.Equal(0, MechanismTrial.Pick(rates));
        Assert.Equal(3.0, rates[1], 3);
        Assert.True(double.IsNaN(MechanismTrial.Rates([0], [0], [0])[0]), "a candidate that swept nothing is untried");
    }

    [Theory]
    [InlineData(64L * MiB, 2)]  // CI's 64 MiB
    [InlineData(256L * MiB, 3)]
    [InlineData(1L << 30, 3)]   // 1 GiB, three candidates: the first guess runs untried
    [InlineData(1L << 40, 1)]   // one candidate: nothing to try
    public void UnitsEach_OnASetTooSmallForTrials_OrOneCandidate_IsZero(long setBytes, int candidates) =>
        Assert.Equal(0, MechanismTrial.UnitsEach(setBytes, candidates));

    [Theory]
    [InlineData(1L << 30, 2)]
    [InlineData(2L << 30, 3)]
    [InlineData(8L << 30, 3)]
    [InlineData(100L << 30, 4)]
    public void UnitsEach_OfTheAlternatives_TakeAtMostTheBudgetShareOfTheSet(long setBytes, int candidates)
    {
        int each = MechanismTrial.UnitsEach(setBytes, candidates);

        Assert.InRange(each, MechanismTrial.MinUnitsEach, MechanismTrial.MaxUnitsEach);
        Assert.True(each * MechanismTrial.UnitBytes * (candidates - 1) <= setBytes * MechanismTrial.BudgetShare, $"{each} units each of {setBytes} bytes");
    }

    [Fact]
    public void TouchesAll_OnlyWhereTheFirstAccessCostsMoreThanTwiceTheSecond()
    {
        MechanismTrial.UnitCost[] units =
        [
            new(MiB, 100, FirstTouchTicks: 50, SecondTouchTicks: 10), // candidate 0: a costly first access
            new(MiB, 100, FirstTouchTicks: 15, SecondTouchTicks: 10), // candidate 1: next to nothing left to pay
        ];

        Assert.True(MechanismTrial.TouchesAll(units, [0, 1], 0));
        Assert.False(MechanismTrial.TouchesAll(units, [0, 1], 1));
    }

    [Fact]
    public void FirstTouchRatio_SumsACandidatesUnits_AndIsNaNWhereNoneWasTimed()
    {
        MechanismTrial.UnitCost[] units =
        [
            new(MiB, 100, FirstTouchTicks: 50, SecondTouchTicks: 10),
            new(MiB, 100, FirstTouchTicks: 15, SecondTouchTicks: 10),
            new(MiB, 100, FirstTouchTicks: 30, SecondTouchTicks: 10),
        ];

        Assert.Equal(4.0, MechanismTrial.FirstTouchRatio(units, [0, 1, 0], 0), 3);
        Assert.Equal(1.5, MechanismTrial.FirstTouchRatio(units, [0, 1, 0], 1), 3);
        Assert.True(double.IsNaN(MechanismTrial.FirstTouchRatio(units, [0, 1, 0], 2)));
    }

    [Fact]
    public void ExtraNanoseconds_IsWhatTheAlternativesCostOverTheFirstGuess() =>
        Assert.Equal(3.0 * MiB, MechanismTrial.ExtraNanoseconds([1.0, 4.0, 0.5], [MiB, MiB, MiB]), 3);

    private static long Ticks(double nanoseconds) => (long)(nanoseconds * Stopwatch.Frequency / 1e9);

    [Theory]
    [InlineData(2, 2)]
    [InlineData(3, 2)]
    [InlineData(5, 2)]
    [InlineData(8, 4)]
    [InlineData(16, 8)]
    public void FirstPart_IsHalfABlock_AndAtLeastTwoUnits(int unitsInBlock, int expected) =>
        Assert.Equal(expected, MechanismTrial.FirstPart(unitsInBlock));

    [Theory]
    [InlineData(1.6, 1.0, true)]
    [InlineData(1.5, 1.0, false)] // at the margin: finish the block
    [InlineData(0.5, 1.0, false)]
    [InlineData(9.0, double.NaN, false)] // nothing to compare with yet
    [InlineData(double.NaN, 1.0, false)]
    public void StopsEarly_OnlyPastTheMarginOverTheCheapestSoFar(double partRate, double bestRate, bool expected) =>
        Assert.Equal(expected, MechanismTrial.StopsEarly(partRate, bestRate));
}
