using System.IO.MemoryMappedFiles;
using Microsoft.Extensions.Logging;
using Sharpi.Prefault;

namespace Sharpi.Prefault.Consumer;

/// <summary>src/Sharpi.Prefault/README.md's (the package's) C# snippet, verbatim.</summary>
internal static class PackageReadmeSnippets
{
    public static async Task QuickStart(ILogger logger)
    {
        TensorIndex index = TensorIndex.Read("model.gguf");
        using var map = MemoryMappedFile.CreateFromFile("model.gguf", FileMode.Open, null, 0, MemoryMappedFileAccess.Read);
        using var view = map.CreateViewAccessor(0, 0, MemoryMappedFileAccess.Read);

        // The tensors you read on the CPU, hot first (a partial prefault keeps this order).
        IReadOnlyList<PrefaultRegion> regions = index.Regions(view, new TensorSelection(include: ["blk.*.ffn_*_exps.weight"]));

        // Start before your other init work; wait just before the first request. Never throws for what the OS does.
        await using PrefaultHandle prefault = MmapPrefault.Start(regions, PrefaultOptions.Default with { Label = "engine", Logger = logger });
        BuildGraph(); UploadToGpu();
        PrefaultResult result = await prefault.Completion;
        // logs: [engine] Pre-faulted 17,598,029,824 bytes (2,254,857,216 already resident) in 3.10 s (5.29 GiB/s) via populate; MADV_HUGEPAGE on 16.39 GiB of file mappings (2 MiB folios)
        GC.KeepAlive(result);
    }

    private static void BuildGraph() { }

    private static void UploadToGpu() { }
}
