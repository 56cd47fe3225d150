using BenchmarkDotNet.Attributes;

namespace Sharpi.Prefault.Bench;

/// <summary>What the gate costs before any page is touched: the pure decision, and a whole Run under the kill switch.</summary>
[MemoryDiagnoser]
public class GateBenchmarks
{
    private const int RegionCount = 10_000;
    private readonly MemoryFigures _memory = new(AvailableBytes: 16L << 30, CgroupLimitBytes: null);
    private PrefaultRegion[] _regions = [];
    private string? _previousMode;

    /// <summary>Bytes per region: the kill switch's cost must not depend on it.</summary>
    [Params(4096, 64 * 1024 * 1024)]
    public long RegionBytes { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _previousMode = Environment.GetEnvironmentVariable("SHARPI_PREFAULT");
        Environment.SetEnvironmentVariable("SHARPI_PREFAULT", "off");

        // Addresses are never dereferenced: under the kill switch Run must return before it merges, measures or touches.
        _regions = new PrefaultRegion[RegionCount];
        nint baseAddress = unchecked((nint)0x0000_4000_0000_0000);
        for (int i = 0; i < RegionCount; i++)
        {
            _regions[i] = new PrefaultRegion(baseAddress + (nint)(i * RegionBytes), RegionBytes);
        }
    }

    [GlobalCleanup]
    public void Cleanup() => Environment.SetEnvironmentVariable("SHARPI_PREFAULT", _previousMode);

    [Benchmark]
    public RamGateDecision Decide() => MmapPrefault.Decide(PrefaultMode.Auto, RegionCount * RegionBytes, 0, _memory);

    [Benchmark]
    public PrefaultResult RunUnderKillSwitch() => MmapPrefault.Run(_regions);
}
