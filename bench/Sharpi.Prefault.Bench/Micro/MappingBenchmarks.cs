using BenchmarkDotNet.Attributes;

namespace Sharpi.Prefault.Bench;

/// <summary>Run and Residency.Measure over a warm, already-populated mapping: the fixed cost, which must not allocate in proportion to size.</summary>
[MemoryDiagnoser]
public class MappingBenchmarks : MappedFileBenchmark
{
    private PrefaultRegion[] _regions = [];

    [Params(64L << 20, 1L << 30)]
    public long Bytes { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        CreateFile(Bytes);
        _regions = [Region];
        MmapPrefault.Run(_regions, new PrefaultOptions { RamGate = RamGate.Always });
    }

    [Benchmark]
    public PrefaultResult RunWarm() => MmapPrefault.Run(_regions);

    [Benchmark]
    public ResidencyInfo MeasureResidency() => Residency.Measure(_regions);
}
