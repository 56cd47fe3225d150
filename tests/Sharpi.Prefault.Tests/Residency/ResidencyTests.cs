namespace Sharpi.Prefault.Tests;

public sealed class ResidencyTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Measure_AfterEvict_IsNearZero_AndAfterReadingTheFile_IsFull()
    {
        using TestFile file = TestFile.Create(64 * TestFile.MiB);
        using MappedFile map = file.Map();

        Assert.True(map.ResidentPercent() < 1.0, $"evicted file is {map.ResidentPercent():F1}% resident");

        File.ReadAllBytes(file.Path);

        Assert.Equal(100.0, map.ResidentPercent(), 3);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void OfFile_MatchesTheMappedMeasure()
    {
        using TestFile file = TestFile.Create(16 * TestFile.MiB);
        using (var stream = File.OpenRead(file.Path))
        {
            stream.ReadExactly(new byte[4 * TestFile.MiB]);
        }

        ResidencyInfo info = Residency.OfFile(file.Path);

        Assert.Equal(file.Length, info.Bytes);
        Assert.InRange(info.ResidentBytes, 4 * TestFile.MiB, 8 * TestFile.MiB);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Measure_OfUnmappedMemory_ReportsTheErrorInsteadOfThrowing()
    {
        // Nothing is mapped there: mincore answers ENOMEM and nothing is touched.
        nint address = Unmapped.Address(TestFile.MiB);
        ResidencyInfo info = Residency.Measure(new PrefaultRegion(address, TestFile.MiB, "gone"));

        Assert.NotNull(info.Error);
        Assert.Contains("gone", info.Error, StringComparison.Ordinal);
        Assert.Equal(0, info.ResidentBytes);
    }

    [Fact]
    public void Measure_WithNegativeLength_Throws_NamingTheParameterItWasGiven()
    {
        Assert.Equal("region", Assert.Throws<ArgumentOutOfRangeException>(() => Residency.Measure(new PrefaultRegion(4096, -1))).ParamName);
        Assert.Equal("regions", Assert.Throws<ArgumentOutOfRangeException>(() => Residency.Measure([new PrefaultRegion(4096, -1)])).ParamName);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Pinnable4MiB))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void MeasureEach_CountsEachRegionOnItsOwn_AndReportsUnmappedOnesWithoutThrowing()
    {
        // The first 4 MiB read in and pinned: a machine short of memory reclaimed 2 of its pages between the two counts
        // compared below, when they were only read.
        using TestFile file = TestFile.Create(16 * TestFile.MiB);
        using PinnedPages cached = PinnedPages.Of(file.Path, 0, 4 * TestFile.MiB);

        using MappedFile map = file.Map();
        PrefaultRegion head = map.Region(0, 4 * TestFile.MiB, "head");
        PrefaultRegion overlapping = map.Region(2 * TestFile.MiB, 4 * TestFile.MiB, "overlapping");
        PrefaultRegion tail = map.Region(8 * TestFile.MiB, 8 * TestFile.MiB, "tail");
        var gone = new PrefaultRegion(Unmapped.Address(TestFile.MiB), TestFile.MiB, "gone");

        ResidencyInfo[] each = Residency.MeasureEach([head, overlapping, tail, default, gone]);

        Assert.Equal(4 * TestFile.MiB, each[0].ResidentBytes);
        Assert.Equal(2 * TestFile.MiB, each[1].ResidentBytes);
        Assert.Equal(0, each[2].ResidentBytes);
        Assert.Equal(0, each[3].Bytes);
        Assert.Contains("gone", each[4].Error, StringComparison.Ordinal);
        Assert.Equal(Residency.Measure(head).ResidentBytes, each[0].ResidentBytes);
    }
}
