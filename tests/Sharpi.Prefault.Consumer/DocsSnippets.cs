using System.IO.MemoryMappedFiles;
using Microsoft.Extensions.Logging;
using Sharpi.Prefault;

namespace Sharpi.Prefault.Consumer;

/// <summary>The C# snippets of docs/*.md, verbatim (the API outlines of docs/direct-io.md aside: they list signatures).</summary>
internal static class DocsSnippets
{
    // docs/models.md
    public static void Models()
    {
        TensorIndex index = TensorIndex.Read("model.gguf");
        var experts = new TensorSelection(include: ["blk.*.ffn_*_exps.weight"], exclude: ["blk.0.*"]);

        using var map = MemoryMappedFile.CreateFromFile("model.gguf", FileMode.Open, null, 0, MemoryMappedFileAccess.Read);
        using var view = map.CreateViewAccessor(0, 0, MemoryMappedFileAccess.Read);
        IReadOnlyList<PrefaultRegion> regions = index.Regions(view, experts); // named by tensor, bounds-checked

        foreach (FileByteRange range in index.Ranges(experts))   // per file, touching tensors merged
        {
            Console.WriteLine($"{range.FilePath} {range.Offset} +{range.Length}");
        }
    }

    // docs/reclaim-and-lock.md
    public static void ReclaimAndLock(PrefaultRegion[] regions, PrefaultRegion[] hotRegions, ILogger log)
    {
        // After the tensors were repacked or uploaded to the GPU, hand the source pages back.
        ReclaimResult r = MmapReclaim.Release(regions, ReclaimOptions.Default with { Label = "qwen3-30b", Logger = log });
        // r.BytesRequested, r.BytesReleased, r.Skipped (locked / kept mapped / smaller than a page / failed call), r.IsSupported, r.Reason

        // Keep the hot layers resident; dispose to unlock.
        using LockLease lease = MmapLock.Lock(hotRegions, LockOptions.Default with { Logger = log });
        if (!lease.IsFullyLocked) { /* lease.Failures[i].Message says which limit, its value, and how to raise it */ }
    }

    // docs/direct-io.md
    public static void DirectIO(long tensorOffset, nint stagingBuffer, long tensorBytes, ILogger log)
    {
        using var reader = DirectFileReader.Open("model.safetensors", DirectReadOptions.Default with { Logger = log });
        long n = reader.Read(tensorOffset, (nint)stagingBuffer, tensorBytes);   // bytes read; fewer only at the file's end
        DirectReadStatistics s = reader.Statistics;                           // s.Mode, s.BytesRead, s.Elapsed, s.GiBPerSecond
        GC.KeepAlive(n);
        GC.KeepAlive(s);
    }
}
