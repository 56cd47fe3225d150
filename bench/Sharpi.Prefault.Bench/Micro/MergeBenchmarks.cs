using BenchmarkDotNet.Attributes;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// Merging 10,000 unsorted, overlapping regions, through the public API: Residency.Measure merges, then asks mincore
/// once per merged range (the library has no public merge entry point).
/// </summary>
[MemoryDiagnoser]
public class MergeBenchmarks : MappedFileBenchmark
{
    private const int RegionCount = 10_000;
    private const long MappingBytes = 64L << 20;
    private PrefaultRegion[] _regions = [];

    [GlobalSetup]
    public void Setup()
    {
        CreateFile(MappingBytes);
        var random = new Random(42);
        _regions = new PrefaultRegion[RegionCount];
        for (int i = 0; i < RegionCount; i++)
        {
            long length = random.NextInt64(1, 256 * 1024);
            long offset = random.NextInt64(0, MappingBytes - length);
            _regions[i] = new PrefaultRegion(Region.Address + (nint)offset, length, "t" + i);
        }
    }

    [Benchmark]
    public ResidencyInfo MergeAndMeasure() => Residency.Measure(_regions);
}
