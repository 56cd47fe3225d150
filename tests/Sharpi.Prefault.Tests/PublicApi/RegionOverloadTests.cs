namespace Sharpi.Prefault.Tests.PublicApi;

/// <summary>
/// The <c>PrefaultRegion[]</c> overloads exist so arrays bind under C# 12 and 13 (the consumer project compiles that);
/// here they behave as the list and span ones do.
/// </summary>
public sealed class RegionOverloadTests
{
    private static readonly PrefaultRegion[] Empty = [new PrefaultRegion(0x1000, 0)];

    [Fact]
    public void ArrayOverloads_WithNull_ThrowArgumentNull()
    {
        PrefaultRegion[] none = null!;

        Assert.Equal("regions", Assert.Throws<ArgumentNullException>(() => MmapPrefault.Run(none)).ParamName);
        Assert.Equal("regions", Assert.Throws<ArgumentNullException>(() => MmapPrefault.Start(none)).ParamName);
        Assert.Equal("regions", Assert.Throws<ArgumentNullException>(() => Residency.Measure(none)).ParamName);
        Assert.Equal("regions", Assert.Throws<ArgumentNullException>(() => Residency.MeasureEach(none)).ParamName);
        Assert.Equal("regions", Assert.Throws<ArgumentNullException>(() => MmapLock.Lock(none)).ParamName);
        Assert.Equal("regions", Assert.Throws<ArgumentNullException>(() => MmapReclaim.Release(none)).ParamName);
    }

    [Fact]
    public void ArrayOverloads_WithANegativeLength_ThrowAtTheCall()
    {
        PrefaultRegion[] bad = [new PrefaultRegion(0x1000, -1)];

        Assert.Throws<ArgumentOutOfRangeException>(() => MmapPrefault.Run(bad));
        Assert.Throws<ArgumentOutOfRangeException>(() => MmapPrefault.Start(bad));
        Assert.Throws<ArgumentOutOfRangeException>(() => Residency.Measure(bad));
        Assert.Throws<ArgumentOutOfRangeException>(() => Residency.MeasureEach(bad));
        Assert.Throws<ArgumentOutOfRangeException>(() => MmapLock.Lock(bad));
        Assert.Throws<ArgumentOutOfRangeException>(() => MmapReclaim.Release(bad));
    }

    [Fact]
    public void ArrayOverloads_AnswerAsTheListOverloadsDo()
    {
        IReadOnlyList<PrefaultRegion> list = Empty;

        Assert.Equal(MmapPrefault.Run(list).Reason, MmapPrefault.Run(Empty).Reason);
        Assert.Equal(Residency.Measure(list), Residency.Measure(Empty));
        Assert.Equal(Residency.MeasureEach(list), Residency.MeasureEach(Empty));
        using LockLease fromList = MmapLock.Lock(list);
        using LockLease fromArray = MmapLock.Lock(Empty);
        Assert.Equal(fromList.RequestedBytes, fromArray.RequestedBytes);
        Assert.Equal(MmapReclaim.Release(list).Reason, MmapReclaim.Release(Empty).Reason);
    }
}
