namespace Sharpi.Prefault.Tests.Prefault;

public sealed class PrefaultOptionsTests
{
    [Fact]
    public void Default_HasTheDocumentedValues()
    {
        PrefaultOptions d = new();

        Assert.Equal(RamGate.FitsInRam, d.RamGate);
        Assert.Equal(0.8, d.RamFraction);
        Assert.Equal(Math.Max(8, Environment.ProcessorCount), d.MaxDegreeOfParallelism);
        Assert.Equal(32L << 20, d.ChunkSize);
        Assert.Equal(PrefaultStrategy.Auto, d.Strategy);
        Assert.Null(d.WorkerPriority); // the entry point's own: Normal for Run, BelowNormal for Start
        Assert.Null(d.Logger);
    }

    [Theory]
    [InlineData(0.0)]
    [InlineData(1.0001)]
    [InlineData(double.NaN)]
    [InlineData(double.PositiveInfinity)]
    public void RamFraction_OutsideTheUnitInterval_Throws(double value)
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new PrefaultOptions { RamFraction = value });
    }

    [Fact]
    public void MaxDegreeOfParallelism_BelowOne_Throws()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new PrefaultOptions { MaxDegreeOfParallelism = 0 });
    }

    [Fact]
    public void ChunkSize_IsRoundedUpToWholePages_AndMustBePositive()
    {
        Assert.Equal(Environment.SystemPageSize, (new PrefaultOptions { ChunkSize = 1 }).ChunkSize);
        Assert.Throws<ArgumentOutOfRangeException>(() => new PrefaultOptions { ChunkSize = 0 });
    }

    [Theory]
    [InlineData(long.MaxValue)]
    [InlineData(long.MaxValue - 1)]
    [InlineData(PrefaultOptions.MaxChunkSize + 1)]
    public void ChunkSize_PastTheLargest_IsAnArgumentError(long chunkSize)
    {
        // Before, long.MaxValue threw OverflowException and a value near it overflowed the chunk count: Run did nothing.
        var ex = Assert.Throws<ArgumentOutOfRangeException>(() => new PrefaultOptions { ChunkSize = chunkSize });
        Assert.Equal("value", ex.ParamName);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithTheLargestChunkSize_StillSweepsEveryPage()
    {
        using TestFile file = TestFile.Create(4 * TestFile.MiB);
        using MappedFile map = file.Map();

        PrefaultResult result = MmapPrefault.Run([map.Region()], new PrefaultOptions { ChunkSize = PrefaultOptions.MaxChunkSize });

        Assert.Equal(file.Length, result.Bytes);
        Assert.Equal(100.0, map.ResidentPercent(), 3);
    }

    [Fact]
    public void Label_MustNotBeBlank()
    {
        Assert.Throws<ArgumentException>(() => new PrefaultOptions { Label = " " });
    }

    [Fact]
    public void UndefinedEnumValues_Throw()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new PrefaultOptions { RamGate = (RamGate)7 });
        Assert.Throws<ArgumentOutOfRangeException>(() => new PrefaultOptions { Strategy = (PrefaultStrategy)7 });
        var ex = Assert.Throws<ArgumentOutOfRangeException>(() => new PrefaultOptions { WorkerPriority = (ThreadPriority)7 });
        Assert.Equal("value", ex.ParamName);
        Assert.Null(new PrefaultOptions { WorkerPriority = null }.WorkerPriority);
    }
}
