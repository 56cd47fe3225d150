namespace Sharpi.Prefault.Tests.DirectIO;

public sealed class DirectReadOptionsTests
{
    [Fact]
    public void Default_Reads32MiBBlocks_TwoInFlight_Within64MiB()
    {
        DirectReadOptions options = new();

        Assert.Equal(32 << 20, options.BlockSize);
        Assert.Equal(2, options.MaxReadsInFlight);
        Assert.Equal(64L << 20, options.MaxInFlightBytes);
        Assert.True(options.IsDirectIOEnabled);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(4095)]
    [InlineData(-1)]
    [InlineData((1 << 30) + 1)]
    public void BlockSize_OutsideTheRange_Throws(int value)
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new DirectReadOptions { BlockSize = value });
    }

    [Theory]
    [InlineData(0)]
    [InlineData(65)]
    public void MaxReadsInFlight_OutsideTheRange_Throws(int value)
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new DirectReadOptions { MaxReadsInFlight = value });
    }

    [Theory]
    [InlineData(0L)]
    [InlineData(-1L)]
    [InlineData(4095L)]
    [InlineData((16L << 30) + 1)]
    public void MaxInFlightBytes_OutsideTheRange_Throws(long value)
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new DirectReadOptions { MaxInFlightBytes = value });
    }
}
