using LLama;
using LLama.Common;
using LLama.Native;
using Sharpi.Prefault.LLamaSharp;

namespace Sharpi.Prefault.Consumer;

/// <summary>The snippets of src/Sharpi.Prefault.LLamaSharp/README.md and docs/llamasharp.md: a LLamaSharp host.</summary>
public static class LLamaSharpSnippets
{
    public static async Task<int> MemoryMapWithTheTap()
    {
        // llama.cpp's own lines name each tensor it repacks as it copies it; pass your own callback as `forward`.
        LLamaLogTap tap = LLamaLogTap.Install(forward: null);
        var parameters = new ModelParams("model.gguf") { LoadMode = LLamaLoadMode.MemoryMap };
        using LLamaLoadResult loaded = await LLamaPrefault.LoadAsync(parameters, LLamaLoadOptions.Default with { LogTap = tap });
        using LLamaContext context = loaded.Weights.CreateContext(parameters);
        return context.EmbeddingSize;
    }

    public static async Task<LLamaWeights> ReadModeWarmedBesideInit(Func<Task> initializeTheRestOfTheHost)
    {
        await using LLamaModelLoad load = LLamaPrefault.Start(new ModelParams("model.gguf")); // the page cache warms from here
        await initializeTheRestOfTheHost();                                                   // your other init, beside it
        using LLamaLoadResult loaded = await load.LoadAsync();
        return loaded.Weights;
    }

    public static async Task<LLamaWeights> KeepsItsOwnLogCallback(NativeLogConfig.LLamaLogCallback hostCallback)
    {
        LLamaLogTap tap = LLamaLogTap.Install(forward: hostCallback); // the host's lines still reach its own callback
        var parameters = new ModelParams("model.gguf") { LoadMode = LLamaLoadMode.MemoryMapAndLock };
        LLamaLoadResult loaded = await LLamaPrefault.LoadAsync(parameters, LLamaLoadOptions.Default with { LogTap = tap });
        return loaded.Weights;
    }
}
