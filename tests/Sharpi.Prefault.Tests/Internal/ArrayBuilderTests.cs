namespace Sharpi.Prefault.Tests.Internal;

/// <summary>The first call's growable array: what was added, in order, across growth.</summary>
public sealed class ArrayBuilderTests
{
    [Fact]
    public void ToArray_WithNothingAdded_IsEmpty()
    {
        var builder = new ArrayBuilder<long>();

        Assert.Empty(builder.ToArray());
        Assert.Equal(0, builder.Count);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(8)]
    [InlineData(9)]
    [InlineData(1000)]
    public void ToArray_AfterAdds_HoldsEveryItemInOrder(int count)
    {
        var builder = new ArrayBuilder<(int, long)>();
        for (int i = 0; i < count; i++)
        {
            builder.Add((i, -i));
        }

        Assert.Equal(count, builder.Count);
        Assert.Equal(Enumerable.Range(0, count).Select(i => (i, (long)-i)), builder.ToArray());
    }
}
