using System.Runtime.InteropServices;
using Microsoft.ML.OnnxRuntime;

namespace Sharpi.Prefault.Tests.Engines;

/// <summary>
/// The library inside a real engine: ONNX Runtime (the NuGet package, CPU provider) with prepacking off maps each
/// external-data initializer itself, read-write and private, and its first inference faults them. These tests find
/// those mappings, prefault them, and check what the engine then sees: no major fault, the same outputs, the same
/// mappings.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed partial class OnnxRuntimeTests : IDisposable
{
    private readonly OnnxRuntimeModel _model = new();

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void NativeMappings_OfFile_FindsEveryInitializerMapping()
    {
        using InferenceSession session = _model.CreateSession();

        IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfFile(_model.DataPath);

        // One mapping per initializer; the kernel merges neighbours that map adjacent file ranges alike into one entry.
        Assert.InRange(regions.Count, 1, OnnxRuntimeModel.Layers);
        Assert.Equal(OnnxRuntimeModel.InitializerBytes, regions.Sum(r => r.Length));
        Assert.All(OnnxRuntimeMappings(), line => Assert.Contains(" rw-p ", line, StringComparison.Ordinal));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_OverTheEnginesMappings_LeavesNoMajorFaultToTheFirstInference()
    {
        PageCache.Evict(_model.DataPath);
        using InferenceSession session = _model.CreateSession();
        IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfFile(_model.DataPath);
        string mappingsBefore = string.Join('\n', OnnxRuntimeMappings());

        PrefaultResult result = MmapPrefault.Run(regions, new PrefaultOptions { RamGate = RamGate.Always });
        long majorFaults = MajorFaultsOfThisThread(() => OnnxRuntimeModel.Infer(session));

        Assert.Empty(result.Failures);
        Assert.Equal(OnnxRuntimeModel.InitializerBytes, result.Bytes);
        Assert.Equal(100.0, Residency.Measure(regions).Percent);
        Assert.All(regions, r => Assert.Equal((int)(r.Length / Environment.SystemPageSize), PageMap.CountPresent(r.Address, r.Length)));
        Assert.Equal(0, majorFaults);
        Assert.Equal(mappingsBefore, string.Join('\n', OnnxRuntimeMappings())); // not split, re-protected or moved
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void FirstInference_WithoutThePrefault_TakesMajorFaults()
    {
        // The check above can fail: on a cold file the engine's own first inference faults its weights in.
        PageCache.Evict(_model.DataPath);
        using InferenceSession session = _model.CreateSession();

        long majorFaults = MajorFaultsOfThisThread(() => OnnxRuntimeModel.Infer(session));

        Assert.True(majorFaults > 0, "a cold first inference took no major fault: the no-fault check above proves nothing here");
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Outputs_WithAndWithoutThePrefault_AreBitIdentical()
    {
        PageCache.Evict(_model.DataPath);
        float[] without;
        using (InferenceSession session = _model.CreateSession())
        {
            without = OnnxRuntimeModel.Infer(session);
        }

        PageCache.Evict(_model.DataPath);
        float[] with;
        using (InferenceSession session = _model.CreateSession())
        {
            MmapPrefault.Run(NativeMappings.OfFile(_model.DataPath), new PrefaultOptions { RamGate = RamGate.Always });
            with = OnnxRuntimeModel.Infer(session);
        }

        Assert.Equal(MemoryMarshal.AsBytes(without.AsSpan()).ToArray(), MemoryMarshal.AsBytes(with.AsSpan()).ToArray());
        Assert.Contains(without, v => v != 0); // a model that computes nothing would compare equal too
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Release_RefusesTheEnginesWritablePrivateMappings()
    {
        using InferenceSession session = _model.CreateSession();
        IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfFile(_model.DataPath);
        MmapPrefault.Run(regions, new PrefaultOptions { RamGate = RamGate.Always });
        float[] before = OnnxRuntimeModel.Infer(session);

        var refused = Assert.Throws<ArgumentException>(() => MmapReclaim.Release(regions));

        Assert.Contains("copy-on-write", refused.Message, StringComparison.Ordinal);
        Assert.All(regions, r => Assert.Equal((int)(r.Length / Environment.SystemPageSize), PageMap.CountPresent(r.Address, r.Length)));
        Assert.Equal(before, OnnxRuntimeModel.Infer(session));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void PrepackingOn_UnmapsTheWeightsAfterCreate_SoThePrefaultGoesBeforeIt()
    {
        using InferenceSession session = _model.CreateSession(prepacking: true);

        Assert.Empty(NativeMappings.OfFile(_model.DataPath));
    }

    public void Dispose() => _model.Dispose();

    private List<string> OnnxRuntimeMappings() =>
        File.ReadLines("/proc/self/maps").Where(l => l.EndsWith(_model.DataPath, StringComparison.Ordinal)).ToList();

    /// <summary>Major page faults this thread took while <paramref name="action"/> ran (the session runs on the calling thread).</summary>
    private static long MajorFaultsOfThisThread(Action action)
    {
        long before = MajorFaults();
        action();
        return MajorFaults() - before;
    }

    private static unsafe long MajorFaults()
    {
        const int RusageThread = 1;
        // struct rusage: ru_utime and ru_stime (two longs each), then ru_maxrss, ru_ixrss, ru_idrss, ru_isrss, ru_minflt, ru_majflt, ...
        long* usage = stackalloc long[18];
        Assert.Equal(0, Getrusage(RusageThread, usage));
        return usage[9];
    }

    [LibraryImport("libc", EntryPoint = "getrusage", SetLastError = true)]
    private static unsafe partial int Getrusage(int who, long* usage);
}

/// <summary>The operators' kill switch holds inside a real engine too: nothing is swept, the first inference faults as before.</summary>
[Collection(SerializedEnvironment.Name)]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class OnnxRuntimeKillSwitchTests : IDisposable
{
    private readonly OnnxRuntimeModel _model = new();

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithKillSwitch_SweepsNothingOfTheEnginesMappings()
    {
        PageCache.Evict(_model.DataPath);
        using InferenceSession session = _model.CreateSession();
        IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfFile(_model.DataPath);

        PrefaultResult result;
        using (new EnvironmentVariableScope("SHARPI_PREFAULT", "off"))
        {
            result = MmapPrefault.Run(regions, new PrefaultOptions { RamGate = RamGate.Always });
        }

        Assert.False(result.HasRun);
        Assert.Equal(0, result.Bytes);
        Assert.All(regions, r => Assert.Equal(0, PageMap.CountPresent(r.Address, r.Length)));
        Assert.Equal(0.0, Residency.OfFile(_model.DataPath).Percent);
    }

    public void Dispose() => _model.Dispose();
}
