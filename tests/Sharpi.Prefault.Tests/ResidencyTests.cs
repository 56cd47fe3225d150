using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests;

public sealed class ResidencyTests
{
    [LinuxFact]
    public void Measure_AfterEvict_IsNearZero_AndAfterReadingTheFile_IsFull()
    {
        using TestFile file = TestFile.Create(64 * TestFile.MiB);
        using MappedFile map = file.Map();

        Assert.True(map.ResidentPercent() < 1.0, $"evicted file is {map.ResidentPercent():F1}% resident");

        File.ReadAllBytes(file.Path);

        Assert.Equal(100.0, map.ResidentPercent(), 3);
    }

    [LinuxFact]
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

    [LinuxFact]
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
    public void Measure_WithNegativeLength_Throws()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => Residency.Measure(new PrefaultRegion(4096, -1)));
    }
}
