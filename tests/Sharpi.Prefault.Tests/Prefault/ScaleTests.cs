using System.Runtime.Versioning;
using Sharpi.Prefault.Tests.Mappings;
using Sharpi.Prefault.Tests.Models;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// A model of millions of tiny tensors: the work and memory of a run must grow with the regions, by a small constant
/// each. Counted (allocations, system calls, stream reads), never timed. (A million 64-byte regions took 3.3 s and
/// allocated 757 MiB; a 2,000,000-tensor GGUF header was read with millions of reads.)
/// </summary>
[SupportedOSPlatform("linux")] // every test needs Requirements.Linux
public sealed class ScaleTests
{
    private const int Regions = 100_000;

    /// <summary>One thread sweeps, so every allocation of the run is on this thread, and counted.</summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_OverManyTinyRegions_AllocatesAFewHundredBytesARegionAtMost()
    {
        using TestFile file = TestFile.Create(Regions * 128L); // data, not a sparse file: the plan leaves holes out
        using NativeMmap map = NativeMmap.Map(file.Path, 0, file.Length);
        PrefaultRegion[] regions = [.. Enumerable.Range(0, Regions).Select(i => new PrefaultRegion(map.Address + (i * 128), 64))];
        PrefaultOptions options = new PrefaultOptions { RamGate = RamGate.Always, MaxDegreeOfParallelism = 1 };
        MmapPrefault.Run(regions[..100], options); // the first run's JIT and statics are not the regions'

        long before = GC.GetAllocatedBytesForCurrentThread();
        PrefaultResult result = MmapPrefault.Run(regions, options);
        long perRegion = (GC.GetAllocatedBytesForCurrentThread() - before) / Regions;

        Assert.Equal(Regions * 64L, result.Bytes);
        Assert.InRange(perRegion, 0, 300);
    }

    /// <summary>32 regions share each page: cachestat asks about each page once, not once for each of them.</summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Cachestat))]
    public void CountResident_OfNeighboursSharingPages_AsksCachestatOncePerPage()
    {
        const int Pages = 128;
        using TestFile file = TestFile.CreateSparse(Pages * 4096L);
        using NativeMmap map = NativeMmap.Map(file.Path, 0, file.Length);
        PrefaultRegion[] regions = [.. Enumerable.Range(0, Pages * 32).Select(i => new PrefaultRegion(map.Address + (i * 128), 64))];
        MergedRegion[] merged = RegionSet.Merge(regions);
        using FileCacheProbe probe = FileCacheProbe.Create(merged, ProcMaps.ReadFor(merged));

        foreach (MergedRegion r in merged)
        {
            Assert.True(probe.TryCountResident(r.Start, r.End, out _, out _, out _));
        }

        Assert.Equal(Pages, probe.CachestatCalls);
    }

    /// <summary>A header of 10,000 tensors is read a page at a time, not with a stream read for each of its fields.</summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Read_OfAGgufHeaderOfManyTensors_ReadsTheStreamAPageAtATime()
    {
        var builder = new GgufBuilder { FillData = false };
        for (int i = 0; i < 10_000; i++)
        {
            builder.F32($"blk.{i / 16}.t{i % 16}.weight", 8);
        }

        byte[] bytes = builder.Build(out long dataStart);
        using var stream = new CountingStream(bytes);

        TensorIndex index = TensorIndex.Read(stream, "many.gguf");

        Assert.Equal(10_000, index.Tensors.Count);
        Assert.InRange(stream.Reads, 1, (dataStart / 4096) + 4);
    }

    /// <summary>
    /// A seekable stream over bytes that counts the reads asked of it (a derived MemoryStream's span and byte reads
    /// all end in this one).
    /// </summary>
    private sealed class CountingStream(byte[] bytes) : MemoryStream(bytes, writable: false)
    {
        public int Reads { get; private set; }

        public override int Read(byte[] buffer, int offset, int count)
        {
            Reads++;
            return base.Read(buffer, offset, count);
        }
    }
}
