namespace Sharpi.Prefault.Tests.PublicApi;

/// <summary>
/// Every entry point takes its regions in one shape, <c>IReadOnlyList&lt;PrefaultRegion&gt;</c> (the consumer project
/// compiles arrays, lists and collection expressions against it); here each checks them at the call.
/// </summary>
public sealed class RegionOverloadTests
{
    [Fact]
    public void EntryPoints_WithNull_ThrowArgumentNull()
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
    public void EntryPoints_WithANegativeLength_ThrowAtTheCall()
    {
        PrefaultRegion[] bad = [new PrefaultRegion(0x1000, -1)];

        Assert.Throws<ArgumentOutOfRangeException>(() => MmapPrefault.Run(bad));
        Assert.Throws<ArgumentOutOfRangeException>(() => MmapPrefault.Start(bad));
        Assert.Throws<ArgumentOutOfRangeException>(() => Residency.Measure(bad));
        Assert.Throws<ArgumentOutOfRangeException>(() => Residency.MeasureEach(bad));
        Assert.Throws<ArgumentOutOfRangeException>(() => MmapLock.Lock(bad));
        Assert.Throws<ArgumentOutOfRangeException>(() => MmapReclaim.Release(bad));
    }
}
