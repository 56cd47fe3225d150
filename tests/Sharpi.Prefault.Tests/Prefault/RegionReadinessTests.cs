namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// Which caller regions a run is done with: the membership is recorded once, when the regions are merged, and the
/// sweep only says which merged ranges it takes and when each piece of one is swept. No memory is read here: the
/// addresses are never dereferenced.
/// </summary>
public sealed class RegionReadinessTests
{
    [Fact]
    public void Merge_ThenSwept_CompletesEveryMemberOfTheMergedRange_AndNothingElse()
    {
        // Caller regions 0 and 2 overlap (one merged range), 1 stands alone, 3 is empty.
        PrefaultRegion[] regions =
        [
            new(0x10000, 0x2000, "a"),
            new(0x40000, 0x1000, "b"),
            new(0x11000, 0x3000, "a-overlap"),
            new(0x50000, 0, "empty"),
        ];
        var readiness = new RegionReadiness(regions.Length);

        MergedRegion[] merged = readiness.Merge(regions);
        readiness.Expect(merged);

        Assert.Equal(2, merged.Length);
        Assert.True(readiness.WhenReady(3).IsCompleted, "an empty region is ready at once");
        Assert.False(readiness.WhenReady(0).IsCompleted);

        readiness.Swept(merged[0].Order);

        Assert.True(readiness.WhenReady(0).IsCompleted);
        Assert.True(readiness.WhenReady(2).IsCompleted, "a member merged into a swept range is ready with it");
        Assert.False(readiness.WhenReady(1).IsCompleted);
    }

    [Fact]
    public void Expect_LeavingARangeOut_MakesItsMembersReadyAtOnce_AndWaitsForEveryPieceOfTheOthers()
    {
        PrefaultRegion[] regions = [new(0x10000, 0x4000, "hot"), new(0x40000, 0x1000, "cut by the budget")];
        var readiness = new RegionReadiness(regions.Length);
        MergedRegion[] merged = readiness.Merge(regions);
        MergedRegion hot = merged[0];

        // The touch-safety filter can split a range into pieces that keep its Order: the range waits for both.
        readiness.Expect([hot with { End = hot.Start + 0x1000 }, hot with { Start = hot.Start + 0x2000 }]);
        Assert.True(readiness.WhenReady(1).IsCompleted);
        readiness.Swept(hot.Order);
        Assert.False(readiness.WhenReady(0).IsCompleted);
        readiness.Swept(hot.Order);
        Assert.True(readiness.WhenReady(0).IsCompleted);
    }
}
