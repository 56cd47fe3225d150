using LLama;
using LLama.Native;

namespace Sharpi.Prefault.LLamaSharp;

/// <summary>A model loaded by <see cref="LLamaPrefault"/>: LLamaSharp's weights, and what the library gave back, locked and warmed.</summary>
public sealed class LLamaLoadResult : IDisposable
{
    private readonly string _path;
    private TensorIndex? _index;

    internal LLamaLoadResult(LLamaWeights weights, TensorIndex? index, string path)
    {
        (Weights, _index, _path) = (weights, index, path);
    }

    /// <summary>The weights, as <c>LLamaWeights.LoadFromFileAsync</c> returns them. Disposed with the result.</summary>
    public LLamaWeights Weights { get; }

    /// <summary>The load mode the host's parameters asked for.</summary>
    public LLamaLoadMode RequestedLoadMode { get; init; }

    /// <summary>The load mode llama.cpp loaded with: the requested one, or <c>MemoryMap</c> where the library locks instead (<see cref="LLamaLoadOptions.IsLockInPlaceEnabled"/>).</summary>
    public LLamaLoadMode LoadMode { get; init; }

    /// <summary>Wall time of LLamaSharp's load, the pages given back during it included.</summary>
    public TimeSpan LoadTime { get; init; }

    /// <summary>The tensors llama.cpp copied into its own buffer (repacked): their mapped pages are never read again.</summary>
    public IReadOnlyList<string> RepackedTensors { get; init; } = [];

    /// <summary>How <see cref="RepackedTensors"/> was learned.</summary>
    public RepackSource RepackSource { get; init; }

    /// <summary>Bytes of repacked tensors' mapped pages given back while the load ran (a live <see cref="LLamaLogTap"/> and a mapped mode).</summary>
    public long BytesReleasedDuringLoad { get; init; }

    /// <summary>Bytes given back after the load returned: the rest of the repacked tensors.</summary>
    public long BytesReleasedAfterLoad { get; init; }

    /// <summary>Calls made to <see cref="MmapReclaim"/> to give the pages back.</summary>
    public int ReleaseCalls { get; init; }

    /// <summary>Time spent giving pages back, during the load and after it.</summary>
    public TimeSpan ReleaseTime { get; init; }

    /// <summary>The lock of the tensors read in place (<c>MemoryMapAndLock</c> with <see cref="LLamaLoadOptions.IsLockInPlaceEnabled"/>), or null. Disposed with the result.</summary>
    public LockLease? Lock { get; init; }

    /// <summary>The page cache warm-up of a read-mode load (it is stopped when the load returns), or null.</summary>
    public PageCacheWarmResult? Warm { get; init; }

    /// <summary>
    /// Every tensor of the model with the page cache residency of its bytes in llama.cpp's mapping now (mincore). In
    /// the read modes nothing maps the file, and every tensor shows 0 bytes.
    /// </summary>
    /// <returns>The tensors in file order.</returns>
    /// <exception cref="ModelFormatException">The model's tensor table could not be read (not a GGUF the library reads).</exception>
    /// <exception cref="IOException">The model file can no longer be read.</exception>
    public IReadOnlyList<LLamaTensorResidency> MeasureResidency()
    {
        _index ??= TensorIndex.Read(_path);

        TensorMapping mapping = OperatingSystem.IsWindows() ? TensorMapping.Empty : TensorMapping.Find(_index);
        var repacked = new HashSet<string>(RepackedTensors, StringComparer.Ordinal);
        var tensors = new List<LLamaTensorResidency>(_index.Tensors.Count);
        foreach (TensorInfo t in _index.Tensors)
        {
            List<PrefaultRegion> regions = mapping.Regions([t.Name]);
            ResidencyInfo residency = regions.Count == 0 ? new ResidencyInfo(0, 0, Residency.IsSupported) : Residency.Measure(regions);
            tensors.Add(new LLamaTensorResidency(t.Name, repacked.Contains(t.Name), residency));
        }

        return tensors;
    }

    /// <summary>Releases the lock (if any) and the weights.</summary>
    public void Dispose()
    {
        Lock?.Dispose();
        Weights.Dispose();
    }
}
