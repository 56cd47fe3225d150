using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>The plan of a run: residency per region, and the RAM budget cutting it in the caller's order.</summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class PrefaultPlanTests
{
    [LinuxFact]
    public void WithinBudget_TakesRegionsInOrder_CutsTheOneThatCrosses_AndSkipsTheRest()
    {
        // Anonymous pages nobody touched are not resident: the "hot" region gets 0x8000 resident bytes by a write.
        using var memory = new NativeBuffer(0xA0000);
        memory.Fill(0x10000, 0x8000);
        MergedRegion[] merged =
        [
            new(memory.At(0x10000), memory.At(0x30000), "hot", 0),
            new(memory.At(0x40000), memory.At(0x60000), "warm", 1),
            new(memory.At(0x80000), memory.At(0xA0000), "cold", 2),
        ];
        var failures = new List<RegionFailure>();

        PrefaultPlan plan = PrefaultPlan.Measure(merged, ProcMaps.ReadFor(merged), failures);
        PrefaultPlan kept = plan.WithinBudget(0x18000 + 0x8000);

        Assert.Empty(failures);
        Assert.Equal(0x8000, plan.BytesAlreadyResident);
        Assert.Equal(["hot", "warm"], kept.Regions.Select(k => k.Region.Name));
        Assert.Equal(0x20000, kept.Regions[0].Region.Length);
        Assert.Equal(0x8000, kept.Regions[1].Region.Length);
        Assert.Equal(plan.BytesRequested, kept.BytesRequested);
    }

    [LinuxFact]
    public void Measure_DropsUnmappedRegions_AsFailures()
    {
        using var memory = new NativeBuffer(0x20000);
        MergedRegion[] merged = [new(memory.At(0), memory.At(0x10000), "mapped", 0), new(0x1000, 0x3000, "nowhere", 1)];
        var failures = new List<RegionFailure>();

        PrefaultPlan plan = PrefaultPlan.Measure(merged, ProcMaps.ReadFor(merged), failures);

        Assert.Equal(["mapped"], plan.Regions.Select(p => p.Region.Name));
        Assert.Equal(0x12000, plan.BytesRequested);
        RegionFailure failure = Assert.Single(failures);
        Assert.Equal("nowhere", failure.Name);
    }

    /// <summary>
    /// Fresh shared anonymous memory (a new mapping, so no page of it is resident until written), unmapped on dispose.
    /// </summary>
    private sealed unsafe class NativeBuffer : IDisposable
    {
        private readonly System.IO.MemoryMappedFiles.MemoryMappedFile _map;
        private readonly System.IO.MemoryMappedFiles.MemoryMappedViewAccessor _view;
        private readonly byte* _base;

        internal NativeBuffer(int bytes)
        {
            _map = System.IO.MemoryMappedFiles.MemoryMappedFile.CreateNew(null, bytes);
            _view = _map.CreateViewAccessor(0, bytes);
            _view.SafeMemoryMappedViewHandle.AcquirePointer(ref _base);
            _base += _view.PointerOffset;
        }

        internal nint At(int offset) => (nint)_base + offset;

        internal void Fill(int offset, int bytes) => new Span<byte>(_base + offset, bytes).Fill(1);

        public void Dispose()
        {
            _view.SafeMemoryMappedViewHandle.ReleasePointer();
            _view.Dispose();
            _map.Dispose();
        }
    }
}
