using System.IO.MemoryMappedFiles;
using Microsoft.Extensions.Logging;
using Sharpi.Prefault;

namespace Sharpi.Prefault.Consumer;

/// <summary>README.md's C# snippets, verbatim, each in a method whose parameters are what the snippet takes as given.</summary>
internal static class ReadmeSnippets
{
    public static void QuickStart(long embdOffset, long embdLength, long expertsOffset, long expertsLength)
    {
        using ILoggerFactory loggerFactory = LoggerFactory.Create(b => b.AddSimpleConsole(o => o.SingleLine = true));
        ILogger logger = loggerFactory.CreateLogger("engine");

        using var mmf = MemoryMappedFile.CreateFromFile("model.gguf", FileMode.Open, null, 0, MemoryMappedFileAccess.Read);
        using var view = mmf.CreateViewAccessor(0, 0, MemoryMappedFileAccess.Read);

        // The CPU-resident regions you will read, hot ones first (a partial prefault keeps this order).
        PrefaultRegion[] regions =
        [
            PrefaultRegion.FromView(view, embdOffset, embdLength, "token_embd.weight"),
            PrefaultRegion.FromView(view, expertsOffset, expertsLength, "blk.0.ffn_up_exps.weight"),
        ];

        PrefaultResult result = MmapPrefault.Run(regions, PrefaultOptions.Default with { Label = "engine", Logger = logger });
        // logs (console provider, one line): info: engine[1] [engine] Pre-faulted 17,598,029,824 bytes (2,254,857,216 already resident) in 3.10 s (5.29 GiB/s) via populate; MADV_HUGEPAGE on 16.39 GiB of file mappings (2 MiB folios)
        Console.WriteLine($"{result.Method}: {result.Bytes} bytes in {result.Elapsed} ({result.GiBPerSecond:F1} GiB/s); {result.Reason}");
    }

    public static void FailuresNameTheCall(PrefaultResult result)
    {
        foreach (RegionFailure failure in result.Failures)
        {
            // blk.9.ffn_up_exps.weight: pages past the end of the mapped file (truncated?) ... [madvise(MADV_POPULATE_READ): errno 14 (Bad address)]
            Console.WriteLine($"{failure.Name}: {failure.Message} [{failure.Error}]");
        }
    }

    public static async Task StartBeforeInit(PrefaultRegion[] regions, PrefaultOptions options, CancellationToken cancellationToken)
    {
        await using PrefaultHandle prefault = MmapPrefault.Start(regions, options, cancellationToken);
        BuildGraph(); UploadToGpu(); AllocateKvCache();      // overlaps the read-ahead
        PrefaultResult result = await prefault.Completion;   // resident by the first request
        GC.KeepAlive(result);
    }

    public static void TensorIndexRegions(MemoryMappedViewAccessor view)
    {
        TensorIndex index = TensorIndex.Read("model.gguf");
        var experts = new TensorSelection(include: ["blk.*.ffn_*_exps.weight"]);
        PrefaultResult result = MmapPrefault.Run(index.Regions(view, experts));
        GC.KeepAlive(result);
    }

    private static void BuildGraph() { }

    private static void UploadToGpu() { }

    private static void AllocateKvCache() { }
}
