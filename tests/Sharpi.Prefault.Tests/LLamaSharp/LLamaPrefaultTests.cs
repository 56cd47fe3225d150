using System.Runtime.Versioning;
using LLama;
using LLama.Native;
using Sharpi.Prefault.LLamaSharp;
using Sharpi.Prefault.Samples.LLamaSharp;

namespace Sharpi.Prefault.Tests.LLamaSharp;

/// <summary>
/// The companion package over the real LLamaSharp 0.30.0 and its CPU backend: a small llama GGUF of Q4_0 blocks
/// (which llama.cpp repacks on this CPU) loaded as a host loads it, with the library's additions, and checked against
/// llama.cpp's own lines, the page residency of its mapping, and the tokens it decodes.
/// </summary>
[Collection(LlamaCppLogCallback.Name)]
[SupportedOSPlatform("linux")]
public sealed class LLamaPrefaultTests(ITestOutputHelper output) : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("sharpi-llamasharp-").FullName;

    // Type names (the writer's enum is internal): repacked on this CPU (Q4_0, Q4_K, IQ4_NL) and not (Q8_0, F32).
    public static TheoryData<string> WeightTypes => new() { "Q4_0", "Q4_K", "IQ4_NL", "Q8_0", "F32" };

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.LLamaSharp), nameof(Requirements.LlamaCppRepacks))]
    [MemberData(nameof(WeightTypes))]
    public async Task LoadAsync_WithTheTap_LearnsTheRepackedTensorsFromTheLog_AndThePredictionAgrees(string typeName)
    {
        var type = Enum.Parse<TinyLlamaModel.WeightType>(typeName);
        string path = Write(type, layers: 2);
        LLamaLogTap tap = LLamaLogTap.Install();

        using LLamaLoadResult result = await LLamaPrefault.LoadAsync(LLamaHost.Parameters(path, LLamaLoadMode.MemoryMap), new LLamaLoadOptions { LogTap = tap });

        List<string> predicted = RepackRules.Predict(TensorIndex.Read(path));
        output.WriteLine($"{type}: llama.cpp repacked {result.RepackedTensors.Count} tensors, predicted {predicted.Count}");
        Assert.Equal(RepackSource.Log, result.RepackSource);
        Assert.Equal(predicted.Order(StringComparer.Ordinal), result.RepackedTensors.Order(StringComparer.Ordinal));
        if (type is TinyLlamaModel.WeightType.Q4_0 or TinyLlamaModel.WeightType.Q4_K or TinyLlamaModel.WeightType.IQ4_NL)
        {
            Assert.Equal(14, result.RepackedTensors.Count); // 7 block matrices x 2; output.weight's 259 rows are not a multiple of 8
        }
        else
        {
            Assert.Empty(result.RepackedTensors);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.LLamaSharp), nameof(Requirements.LlamaCppRepacks))]
    public async Task LoadAsync_WithTheTap_GivesTheRepackedTensorsBackDuringTheLoad_AndKeepsTheRestMapped()
    {
        string path = Write(TinyLlamaModel.WeightType.Q4_0, layers: 8);
        LLamaLogTap tap = LLamaLogTap.Install();
        var options = new LLamaLoadOptions { LogTap = tap, ReleaseBatchBytes = 2L << 20 };

        using LLamaLoadResult result = await LLamaPrefault.LoadAsync(LLamaHost.Parameters(path, LLamaLoadMode.MemoryMap), options);

        (long repackedPresent, long repackedBytes) = Present(path, result.RepackedTensors);
        string[] inPlace = [.. TensorIndex.Read(path).Tensors.Select(t => t.Name).Except(result.RepackedTensors)];
        (long inPlacePresent, long inPlaceBytes) = Present(path, inPlace);
        output.WriteLine($"gave back {result.BytesReleasedDuringLoad} bytes during the load, {result.BytesReleasedAfterLoad} after, in {result.ReleaseCalls} calls ({result.ReleaseTime.TotalMilliseconds:F1} ms); " +
            $"repacked tensors: {repackedPresent} of {repackedBytes} bytes mapped; read in place: {inPlacePresent} of {inPlaceBytes}");
        Assert.Equal(56, result.RepackedTensors.Count);
        Assert.True(result.ReleaseCalls > 2, $"{result.ReleaseCalls} calls: the batches of 2 MiB did not run while the load did");
        Assert.True(result.BytesReleasedDuringLoad > repackedBytes / 2, $"only {result.BytesReleasedDuringLoad} of {repackedBytes} bytes were given back during the load");
        Assert.True(repackedPresent < repackedBytes / 20, $"{repackedPresent} of {repackedBytes} bytes of repacked tensors still mapped");
        // What llama.cpp reads in place (the embeddings, norms, output) stays mapped, and cached (mincore).
        Assert.Equal(inPlaceBytes, inPlacePresent);
        Assert.All(result.MeasureResidency().Where(t => !t.IsRepacked), t => Assert.Equal(t.Residency.Bytes, t.Residency.ResidentBytes));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.LLamaSharp), nameof(Requirements.LlamaCppRepacks))]
    public async Task LoadAsync_WithoutTheTap_PredictsTheRepackedTensors_AndGivesThemBackAfterTheLoad()
    {
        string path = Write(TinyLlamaModel.WeightType.Q4_0, layers: 2);
        var silent = new LLamaLogTap(); // constructed, never registered: it hears nothing, as a tap the host replaced
        LLamaLogTap.Install(); // the callback llama.cpp has is another one

        using LLamaLoadResult result = await LLamaPrefault.LoadAsync(LLamaHost.Parameters(path, LLamaLoadMode.MemoryMap), new LLamaLoadOptions { LogTap = silent });

        Assert.Equal(RepackSource.Prediction, result.RepackSource);
        Assert.Equal(14, result.RepackedTensors.Count);
        Assert.Equal(0, result.BytesReleasedDuringLoad);
        Assert.True(result.BytesReleasedAfterLoad > 0);
        (long present, long bytes) = Present(path, result.RepackedTensors);
        Assert.True(present < bytes / 10, $"{present} of {bytes} bytes of repacked tensors still mapped");
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.LLamaSharp), nameof(Requirements.LlamaCppRepacks))]
    public async Task Decode_AfterTheRelease_Gives32TokensIdenticalToReadMode_WithoutAMajorFault()
    {
        // Read mode (llama.cpp's default: read(), no mapping) decodes the reference tokens.
        string path = Write(TinyLlamaModel.WeightType.Q4_0, layers: 2);
        int[] reference;
        using (LLamaWeights read = await LLamaWeights.LoadFromFileAsync(LLamaHost.Parameters(path, LLamaLoadMode.None)))
        {
            reference = LLamaHost.Greedy(read, path, 32).Tokens;
        }

        using LLamaLoadResult mapped = await LLamaPrefault.LoadAsync(LLamaHost.Parameters(path, LLamaLoadMode.MemoryMap), new LLamaLoadOptions { LogTap = LLamaLogTap.Install() });
        // The given-back pages leave the page cache too: a read of one now would be a major fault, not a minor one.
        PageCache.Evict(path);
        (int[] tokens, long majorFaults) = LLamaHost.Greedy(mapped.Weights, path, 32);

        output.WriteLine($"{string.Join(' ', tokens)}; {majorFaults} major faults");
        Assert.True(mapped.BytesReleasedDuringLoad + mapped.BytesReleasedAfterLoad > 0);
        Assert.Equal(reference, tokens);
        Assert.Equal(0, majorFaults);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.LLamaSharp), nameof(Requirements.LlamaCppRepacks))]
    public async Task Decode_AfterTheGiveBack_MapsNoGivenBackPageBackIn()
    {
        // A fault on a small tensor read in place maps its whole page-cache folio, given-back neighbours included, unless
        // the mapping was split at the in-place tensors' edges after the give-back.
        string path = Write(TinyLlamaModel.WeightType.Q4_0, layers: 8);
        // The page cache in 2 MiB folios, as a big model's read-ahead leaves it: read through a huge-page view, then closed.
        PageCache.Evict(path);
        using (MappedModel view = MappedModel.OpenFile(path))
        {
            MmapPrefault.Run([view.FileRegion(path)], new PrefaultOptions { RamGate = RamGate.Always });
        }

        using LLamaLoadResult mapped = await LLamaPrefault.LoadAsync(LLamaHost.Parameters(path, LLamaLoadMode.MemoryMap), new LLamaLoadOptions { LogTap = LLamaLogTap.Install() });

        LLamaHost.Greedy(mapped.Weights, path, 8);

        (long present, long bytes) = Present(path, mapped.RepackedTensors);
        output.WriteLine($"after decoding: {present} of {bytes} bytes of repacked tensors mapped");
        Assert.True(present == 0, $"decoding mapped {present} of {bytes} bytes of given-back tensors back in");
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.LLamaSharp), nameof(Requirements.LlamaCppRepacks))]
    public async Task Decode_AfterATensorReadInPlaceWasGivenBack_TakesMajorFaults()
    {
        // The check above can fail: give back a tensor llama.cpp still reads (output.weight, read in place) and decoding
        // faults it back from the disk.
        string path = Write(TinyLlamaModel.WeightType.Q4_0, layers: 2);
        using LLamaLoadResult mapped = await LLamaPrefault.LoadAsync(LLamaHost.Parameters(path, LLamaLoadMode.MemoryMap), new LLamaLoadOptions { LogTap = LLamaLogTap.Install() });
        Assert.DoesNotContain("output.weight", mapped.RepackedTensors);
        MmapReclaim.Release(NativeMappings.OfTensors(TensorIndex.Read(path), new TensorSelection(include: ["output.weight"])));
        PageCache.Evict(path);

        (_, long majorFaults) = LLamaHost.Greedy(mapped.Weights, path, 32);

        Assert.True(majorFaults > 0, "decoding took no major fault after a tensor it reads in place was given back and evicted");
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.LLamaSharp), nameof(Requirements.LlamaCppRepacks))]
    public async Task LoadAsync_WithMemoryMapAndLock_LocksOnlyTheTensorsReadInPlace()
    {
        string path = Write(TinyLlamaModel.WeightType.Q4_0, layers: 4);

        using LLamaLoadResult result = await LLamaPrefault.LoadAsync(LLamaHost.Parameters(path, LLamaLoadMode.MemoryMapAndLock), new LLamaLoadOptions { LogTap = LLamaLogTap.Install() });

        IReadOnlyList<LLamaTensorResidency> tensors = result.MeasureResidency();
        long inPlace = tensors.Where(t => !t.IsRepacked).Sum(t => t.Residency.Bytes);
        long all = tensors.Sum(t => t.Residency.Bytes);
        output.WriteLine($"locked {result.Lock?.LockedBytes} bytes: {inPlace} of {all} mapped bytes are read in place");
        Assert.Equal(LLamaLoadMode.MemoryMap, result.LoadMode);
        Assert.NotNull(result.Lock);
        Assert.True(result.Lock.IsFullyLocked, string.Join("; ", result.Lock.Failures));
        // The pages that hold the in-place tensors (rounded out to whole pages), nowhere near the whole file.
        Assert.InRange(result.Lock.LockedBytes, inPlace, inPlace + (tensors.Count * 2L * Environment.SystemPageSize));
        Assert.True(result.Lock.LockedBytes < all / 2);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.LLamaSharp))]
    public async Task Start_InReadMode_WarmsThePageCache_BesideTheHostsInit()
    {
        string path = Write(TinyLlamaModel.WeightType.Q4_0, layers: 4);
        PageCache.Evict(path);

        var log = new ListLogger();
        await using LLamaModelLoad load = LLamaPrefault.Start(LLamaHost.Parameters(path, LLamaLoadMode.None), new LLamaLoadOptions { Logger = log });
        PageCacheWarmResult warmed = await PageCache.WarmAsync(path); // stands for the host's init: the load's own warm-up runs beside it
        using LLamaLoadResult result = await load.LoadAsync();
        long residentAfter = Residency.OfFile(path).ResidentBytes;

        // The warm-up's line gives the residency measured when the load returned, not only the bytes it read.
        string resident = Assert.Single(log.Fields, f => f.ContainsKey("Resident"))["Resident"] as string ?? string.Empty;
        Assert.StartsWith(residentAfter.ToString("N0", System.Globalization.CultureInfo.InvariantCulture) + " bytes (", resident, StringComparison.Ordinal);

        Assert.NotNull(result.Warm);
        Assert.Null(result.Warm.Error);
        Assert.True(result.Warm.BytesRead > 0);
        Assert.True(warmed.IsComplete);
        Assert.Equal(LLamaLoadMode.None, result.LoadMode);
        Assert.Equal(0, result.BytesReleasedAfterLoad); // read mode maps nothing, so there is nothing to give back
        Assert.All(result.MeasureResidency(), t => Assert.Equal(0, t.Residency.Bytes));
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.LLamaSharp), nameof(Requirements.LlamaCppRepacks))]
    [InlineData(LLamaLoadMode.MemoryMap)]
    [InlineData(LLamaLoadMode.MemoryMapAndLock)]
    public async Task LoadAsync_WhenTheFileIsDeletedAsTheLoadEnds_StillLoads_AndSaysWhatItCouldNotDo(LLamaLoadMode mode)
    {
        // A model store that removes the file while the load runs: llama.cpp keeps its mapping and loads, so the
        // give-back and the lock after it, which look the file up again, must not turn that load into a failure.
        string path = Write(TinyLlamaModel.WeightType.Q4_0, layers: 2);
        var log = new ListLogger();
        var progress = new CallbackProgress<float>(p =>
        {
            if (p >= 1f && File.Exists(path))
            {
                File.Delete(path);
            }
        });

        using LLamaLoadResult result = await LLamaPrefault.LoadAsync(LLamaHost.Parameters(path, mode), new LLamaLoadOptions { Progress = progress, Logger = log });

        Assert.False(File.Exists(path)); // the case is real
        Assert.NotNull(result.Weights);
        Assert.Contains(605, log.EventIds);
        if (mode == LLamaLoadMode.MemoryMapAndLock)
        {
            Assert.Null(result.Lock);
            Assert.Contains(log.Entries, e => e.Message.Contains("nothing is locked", StringComparison.Ordinal));
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.LLamaSharp))]
    public async Task DisposeAsync_Twice_ReturnsQuietly()
    {
        string path = Write(TinyLlamaModel.WeightType.F32, layers: 1);
        LLamaModelLoad load = LLamaPrefault.Start(LLamaHost.Parameters(path, LLamaLoadMode.None));

        await load.DisposeAsync();
        await load.DisposeAsync(); // an await using beside an explicit dispose
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.LLamaSharp))]
    public async Task LoadAsync_Twice_Throws()
    {
        string path = Write(TinyLlamaModel.WeightType.F32, layers: 1);
        await using LLamaModelLoad load = LLamaPrefault.Start(LLamaHost.Parameters(path, LLamaLoadMode.MemoryMap));
        using LLamaLoadResult first = await load.LoadAsync();

        await Assert.ThrowsAsync<InvalidOperationException>(async () => await load.LoadAsync());
    }

    [Fact]
    public void Start_WithAMissingModel_ThrowsAtTheCall()
    {
        string missing = Path.Combine(_folder, "missing.gguf");

        Assert.Throws<FileNotFoundException>(() => LLamaPrefault.Start(new LLama.Common.ModelParams(missing)));
        Assert.Throws<ArgumentNullException>(() => LLamaPrefault.Start(null!));
        Assert.Throws<ArgumentOutOfRangeException>(() => new LLamaLoadOptions { ReleaseBatchBytes = 1 });
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    /// <summary>Of the whole pages inside the named tensors' mapped regions: the bytes mapped into this process now (/proc/self/pagemap), and all of them.</summary>
    private static (long Present, long Bytes) Present(string path, IEnumerable<string> names)
    {
        IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfTensors(TensorIndex.Read(path), new TensorSelection(include: names));
        long page = Environment.SystemPageSize;
        long present = 0;
        long bytes = 0;
        foreach (PrefaultRegion r in regions)
        {
            // Whole pages inside the region only: an edge page also holds a neighbour, which may be read in place.
            nint first = (nint)(((long)r.Address + page - 1) / page * page);
            long length = ((long)r.End / page * page) - first;
            if (length > 0)
            {
                present += PageMap.CountPresent(first, length) * page;
                bytes += length;
            }
        }

        return (present, bytes);
    }

    private string Write(TinyLlamaModel.WeightType type, int layers)
    {
        string path = Path.Combine(_folder, $"tiny-{type}-{layers}.gguf");
        TinyLlamaModel.Write(path, TinyLlamaModel.Shape.Tiny(layers), type);
        return path;
    }
}
