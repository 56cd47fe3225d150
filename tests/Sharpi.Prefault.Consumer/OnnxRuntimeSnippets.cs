using Microsoft.ML.OnnxRuntime;
using Sharpi.Prefault;

namespace Sharpi.Prefault.Consumer;

/// <summary>The C# snippets of docs/onnxruntime.md, verbatim: ONNX Runtime hosts, with prepacking off and on.</summary>
internal static class OnnxRuntimeSnippets
{
    public static void PrepackingOff(string modelPath, string weightsPath)
    {
        using var options = new SessionOptions();
        options.AddSessionConfigEntry("session.disable_prepacking", "1");
        using var session = new InferenceSession(modelPath, options); // maps each initializer of the weights file

        // ONNX Runtime's own mappings of the weights, found by the file's identity, then made resident.
        IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfFile(weightsPath);
        PrefaultResult result = MmapPrefault.Run(regions);
    }

    public static async Task PrepackingOffWithOtherInit(InferenceSession session, string weightsPath, Func<Task> loadTokenizer)
    {
        IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfFile(weightsPath);
        await using PrefaultHandle prefault = MmapPrefault.Start(regions);
        await loadTokenizer();                  // the host's other init runs beside the sweep
        PrefaultResult result = await prefault.Completion;
    }

    public static async Task<InferenceSession> PrepackingOn(string modelPath, string weightsPath)
    {
        await PageCache.WarmAsync(weightsPath);        // the copy at creation reads memory, not the disk; nothing is mapped
        var session = new InferenceSession(modelPath); // prepacks the weights, then unmaps them

        if (OperatingSystem.IsLinux())
        {
            PageCache.Evict(weightsPath); // nothing reads the file any more: give its page cache back
        }

        return session;
    }
}
