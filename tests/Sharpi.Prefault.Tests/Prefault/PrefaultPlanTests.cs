namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>The plan of a run: residency per region, and the RAM budget cutting it in the caller's order.</summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class PrefaultPlanTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
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

        PrefaultPlan plan = PrefaultPlan.Measure(merged, failures);
        PrefaultPlan kept = plan.WithinBudget(0x18000 + 0x8000);

        Assert.Empty(failures);
        Assert.Equal(0x8000, plan.BytesAlreadyResident);
        Assert.Equal(["hot", "warm"], kept.Regions.Select(k => k.Region.Name));
        Assert.Equal(0x20000, kept.Regions[0].Region.Length);
        Assert.Equal(0x8000, kept.Regions[1].Region.Length);
        Assert.Equal(plan.BytesRequested, kept.BytesRequested);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Measure_DropsUnmappedRegions_AsFailures()
    {
        using var memory = new NativeBuffer(0x20000);
        MergedRegion[] merged = [new(memory.At(0), memory.At(0x10000), "mapped", 0), new(0x1000, 0x3000, "nowhere", 1)];
        var failures = new List<RegionFailure>();

        PrefaultPlan plan = PrefaultPlan.Measure(merged, failures);

        Assert.Equal(["mapped"], plan.Regions.Select(p => p.Region.Name));
        Assert.Equal(0x12000, plan.BytesRequested);
        RegionFailure failure = Assert.Single(failures);
        Assert.Equal("nowhere", failure.Name);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_OverManyFiles_HoldsNoDescriptorOfItsOwnWhileItSweeps()
    {
        // The plan's probe opens each file under the regions to ask cachestat. Held through the sweep, it held one
        // descriptor per file while the engine's own init work runs beside a background prefault; with 2,000 files
        // under ulimit -n 1024 that left the process none (see FileStaging: Run itself then threw from its metrics).
        const int Files = 200;
        var files = new List<TestFile>();
        var maps = new List<Mappings.NativeMmap>();
        try
        {
            var regions = new List<PrefaultRegion>();
            for (int i = 0; i < Files; i++)
            {
                files.Add(TestFile.Create(64 * 1024));
                maps.Add(Mappings.NativeMmap.Map(files[i].Path, 0, 64 * 1024)); // closes its descriptor
                regions.Add(new PrefaultRegion(maps[i].Address, 64 * 1024, $"t{i}"));
            }

            int before = OpenDescriptors();
            int duringSweep = 0;
            var progress = new CallbackProgress(_ => duringSweep = Math.Max(duringSweep, OpenDescriptors())); // on the calling thread, inside the sweep

            PrefaultResult result = MmapPrefault.Run(regions, new PrefaultOptions { RamGate = RamGate.Always, Progress = progress, MaxDegreeOfParallelism = 1 });

            Assert.True(result.HasRun, result.Reason);
            Assert.Equal(Files * 64L * 1024, result.BytesResident); // the count after the sweep still asks every file
            Assert.NotEqual(0, duringSweep);
            Assert.InRange(duringSweep - before, int.MinValue, Files / 2); // others' tests open files too
        }
        finally
        {
            maps.ForEach(m => m.Dispose());
            files.ForEach(f => f.Dispose());
        }
    }

    private static int OpenDescriptors() => Directory.GetFiles("/proc/self/fd").Length;

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
