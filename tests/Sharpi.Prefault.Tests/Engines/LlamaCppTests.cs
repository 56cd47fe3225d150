using System.Runtime.Intrinsics.X86;
using System.Runtime.Versioning;
using Sharpi.Prefault.Samples.LlamaCpp;
using Sharpi.Prefault.Tests.TestSupport;
using static Sharpi.Prefault.Samples.LlamaCpp.LlamaNative;

namespace Sharpi.Prefault.Tests.Engines;

/// <summary>
/// The library beside a real llama.cpp (the prebuilt libllama that samples/LlamaCpp/get-llama.sh fetches, through its
/// C API): llama.cpp maps the GGUF itself, and these tests find that mapping, prefault it, and give back the pages of
/// the tensors its CPU backend repacked into its own buffers. They skip, saying so, where the library is absent.
/// </summary>
[SupportedOSPlatform("linux")]
public sealed class LlamaCppTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("sharpi-llama-").FullName;

    [LlamaCppFact]
    public void NativeMappings_OfFile_FindsLlamaCppsMappingOfEveryTensor()
    {
        // F32 matrices are read in place from the mapping (nothing is repacked), so all of the tensor data stays mapped.
        string path = WriteModel(TinyLlamaModel.WeightType.F32);
        nint model = LoadModel(path, ModelParameters(LoadMode.Mmap));
        Assert.True(model != 0, TakeLog());
        try
        {
            TensorIndex index = TensorIndex.Read(path);

            IReadOnlyList<PrefaultRegion> mappings = NativeMappings.OfFile(path);
            IReadOnlyList<PrefaultRegion> tensors = NativeMappings.OfTensors(index);

            Assert.NotEmpty(mappings);
            Assert.All(index.Tensors, t => Assert.Equal(t.Length, tensors.Where(r => r.Name == t.Name).Sum(r => r.Length)));
            Assert.All(tensors, r => Assert.Contains(mappings, m => m.Address <= r.Address && r.End <= m.End));
        }
        finally
        {
            ModelFree(model);
        }
    }

    [LlamaCppFact]
    public void NativeMappings_OfFile_WithoutMmap_FindsNothing()
    {
        // The check above can fail: with load_mode none llama.cpp reads the file into its own buffers and maps nothing.
        string path = WriteModel(TinyLlamaModel.WeightType.F32);
        nint model = LoadModel(path, ModelParameters(LoadMode.None));
        Assert.True(model != 0, TakeLog());
        try
        {
            Assert.Empty(NativeMappings.OfFile(path));
        }
        finally
        {
            ModelFree(model);
        }
    }

    [LlamaCppFact]
    public void Run_OverLlamaCppsMapping_PrefaultsItAndLeavesDecodingAlone()
    {
        string path = WriteModel(TinyLlamaModel.WeightType.F32);
        float[] before = FirstLogits(path, prefault: false);

        PageCache.Evict(path);
        float[] after = FirstLogits(path, prefault: true);

        Assert.NotEmpty(before);
        Assert.Equal(before, after);
    }

    [LlamaCppFact(NeedsRepack = true)]
    public void Release_OfTheRepackedTensors_DropsTheirPagesAndKeepsDecodingIdentical()
    {
        // Q4_0 matrices are copied into llama.cpp's CPU_REPACK buffer at load; their pages in the mapping stay resident.
        string path = WriteModel(TinyLlamaModel.WeightType.Q4_0);
        nint model = LoadModel(path, ModelParameters(LoadMode.Mmap));
        string log = TakeLog();
        Assert.True(model != 0, log);
        try
        {
            string[] repacked = [.. System.Text.RegularExpressions.Regex.Matches(log, @"repack tensor (\S+) with").Select(m => m.Groups[1].Value)];
            Assert.NotEmpty(repacked);
            TensorIndex index = TensorIndex.Read(path);
            IReadOnlyList<PrefaultRegion> copied = NativeMappings.OfTensors(index, new TensorSelection(include: repacked));
            float[] before = Decode(model);
            int presentBefore = copied.Sum(r => PageMap.CountPresent(r.Address, r.Length));

            ReclaimResult result = MmapReclaim.Release(copied);

            int presentAfter = copied.Sum(r => PageMap.CountPresent(r.Address, r.Length));
            Assert.Empty(result.Skipped);
            Assert.True(presentBefore > 0, "llama.cpp's load left none of the repacked tensors' pages mapped: the release proves nothing here");
            Assert.True(presentAfter < presentBefore / 10, $"{presentAfter} of {presentBefore} pages still mapped after the release");
            Assert.Equal(before, Decode(model)); // the repacked copies, not the mapping, are what the CPU reads
        }
        finally
        {
            ModelFree(model);
        }
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    private static float[] FirstLogits(string path, bool prefault)
    {
        nint model = LoadModel(path, ModelParameters(LoadMode.Mmap));
        Assert.True(model != 0, TakeLog());
        try
        {
            if (prefault)
            {
                IReadOnlyList<PrefaultRegion> mappings = NativeMappings.OfFile(path);
                PrefaultResult result = MmapPrefault.Run(mappings, PrefaultOptions.Default with { RamGate = RamGate.Always });
                Assert.Empty(result.Failures);
                Assert.NotEmpty(mappings);
                Assert.Equal(mappings.Sum(r => r.Length), result.Bytes);
                Assert.Equal(100.0, Residency.Measure(mappings).Percent);
            }

            return Decode(model);
        }
        finally
        {
            ModelFree(model);
        }
    }

    // A fresh context per call, so each decode starts at position 0 and the logits are comparable.
    private static float[] Decode(nint model)
    {
        nint context = InitFromModel(model, ContextParameters(64));
        Assert.True(context != 0, TakeLog());
        try
        {
            Assert.Equal(0, DecodeOne(context, TinyLlamaModel.Bos));
            return Logits(model, context);
        }
        finally
        {
            Free(context);
        }
    }

    // Two layers of 512-wide matrices: about 21 MiB in F32, 3 MiB in Q4_0.
    private string WriteModel(TinyLlamaModel.WeightType type)
    {
        string path = Path.Combine(_folder, $"tiny-{type}.gguf");
        TinyLlamaModel.Write(path, layers: 2, type, embedding: 512, feedForward: 1024);
        return path;
    }
}

/// <summary>
/// A fact that needs llama.cpp (samples/LlamaCpp/get-llama.sh, or SHARPI_LLAMA_LIB) and shows as skipped, with the
/// reason, where it is absent. <see cref="NeedsRepack"/>: also a CPU whose llama.cpp backend repacks Q4_0 (x86 with AVX2).
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class LlamaCppFactAttribute : FactAttribute
{
    public LlamaCppFactAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "needs llama.cpp: the linux-x64 build samples/LlamaCpp/get-llama.sh fetches";
        }
        else if (!TryLoad(out string reason))
        {
            Skip = $"needs llama.cpp: {reason}";
        }
    }

    private bool _needsRepack;

    public bool NeedsRepack
    {
        get => _needsRepack;
        set
        {
            _needsRepack = value;
            if (value && Skip is null && !Avx2.IsSupported)
            {
                Skip = "needs a CPU whose llama.cpp backend repacks Q4_0 weights (x86 with AVX2)";
            }
        }
    }
}
