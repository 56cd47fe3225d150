namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>The trial rule with injected rates (<see cref="MechanismTrial"/>): no sweep, no clock.</summary>
public sealed class MechanismTrialTests
{
    [Fact]
    public void Choose_PicksTheFastestCandidate()
    {
        int chosen = MechanismTrial.Choose(3, setChunks: 1024, (c, _) => c switch { 0 => 10.0, 1 => 4.0, _ => 8.0 }, out double[] rates);

        Assert.Equal(1, chosen);
        Assert.Equal((10.0, 4.0, 8.0), (rates[0], rates[1], rates[2]));
    }

    [Fact]
    public void Choose_KeepsTheFirstGuess_WhenTrialsTieWithinNoise()
    {
        int chosen = MechanismTrial.Choose(2, setChunks: 1024, (c, _) => c == 0 ? 10.0 : 9.5, out _);

        Assert.Equal(0, chosen);
    }

    [Theory]
    [InlineData(2)]  // CI's 64 MiB in 32 MiB chunks
    [InlineData(32)] // 1 GiB: one chunk is more than 3% of the set
    public void Choose_OnASetTooSmallForTrials_TakesTheFirstWithoutMeasuring(long setChunks)
    {
        int measured = 0;
        int chosen = MechanismTrial.Choose(2, setChunks, (_, _) => ++measured, out double[] rates);

        Assert.Equal(0, chosen);
        Assert.Equal(0, measured);
        Assert.All(rates, r => Assert.True(double.IsNaN(r)));
    }

    [Fact]
    public void Choose_StopsAnAlternative_AfterOneChunkThatIsClearlySlower()
    {
        var calls = new int[2];
        int chosen = MechanismTrial.Choose(2, setChunks: 1024, (c, _) => { calls[c]++; return c == 0 ? 1.0 : 2.0; }, out _);

        Assert.Equal(0, chosen);
        Assert.Equal(MechanismTrial.TrialChunks(1024, 2), calls[0]);
        Assert.Equal(1, calls[1]);
    }

    [Theory]
    [InlineData(34, 2)]
    [InlineData(100, 2)]
    [InlineData(1000, 3)]
    [InlineData(100_000, 4)]
    public void TrialChunks_OfTheAlternatives_TakeAtMostThreePercentOfTheSet(long setChunks, int candidates)
    {
        int each = MechanismTrial.TrialChunks(setChunks, candidates);

        Assert.True(each >= 1, "a set this large gets trials");
        Assert.True(each * (candidates - 1) <= setChunks * MechanismTrial.BudgetShare, $"{each} chunks each of {setChunks}");
    }

    [Fact]
    public void Pick_WithTheFirstUntried_TakesTheFastestTried() =>
        Assert.Equal(2, MechanismTrial.Pick([double.NaN, 5.0, 3.0]));
}
