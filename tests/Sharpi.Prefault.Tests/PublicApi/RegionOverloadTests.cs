using Sharpi.Prefault.Tests.TestSupport;

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

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void ArrayOverloads_AnswerAsTheListOverloadsDo()
    {
        // A real mapped region, so a misrouted overload would show in the bytes, not only in a "nothing to do" reason.
        using TestFile file = TestFile.Create(4 * TestFile.MiB);
        using MappedFile map = file.Map();
        PrefaultRegion[] array = [map.Region("weights")];
        IReadOnlyList<PrefaultRegion> list = [map.Region("weights")];

        Assert.Equal(file.Length, MmapPrefault.Run(array).BytesRequested);
        Assert.Equal(MmapPrefault.Run(list).BytesRequested, MmapPrefault.Run(array).BytesRequested);
        Assert.Equal(Residency.Measure(list), Residency.Measure(array));
        Assert.Equal(Residency.MeasureEach(list), Residency.MeasureEach(array));
        using (LockLease fromList = MmapLock.Lock(list))
        using (LockLease fromArray = MmapLock.Lock(array))
        {
            Assert.Equal(file.Length, fromArray.RequestedBytes);
            Assert.Equal(fromList.RequestedBytes, fromArray.RequestedBytes);
        }

        Assert.Equal(MmapReclaim.Release(list).BytesRequested, MmapReclaim.Release(array).BytesRequested);
    }
}
