using LLama.Abstractions;
using LLama.Native;

namespace Sharpi.Prefault.LLamaSharp;

/// <summary>The host's parameters with another load mode (MemoryMapAndLock becomes MemoryMap; the lock is the library's).</summary>
internal sealed class LoadModeOverride(IModelParams inner, LLamaLoadMode loadMode) : IModelParams
{
    public int MainGpu { get => inner.MainGpu; set => inner.MainGpu = value; }

    public GPUSplitMode? SplitMode => inner.SplitMode;

    public List<TensorBufferOverride> TensorBufferOverrides => inner.TensorBufferOverrides;

    public List<string> Devices => inner.Devices;

    public int GpuLayerCount => inner.GpuLayerCount;

    public string ModelPath => inner.ModelPath;

    public TensorSplitsCollection TensorSplits => inner.TensorSplits;

    public bool VocabOnly => inner.VocabOnly;

    public bool CheckTensors => inner.CheckTensors;

    public List<MetadataOverride> MetadataOverrides => inner.MetadataOverrides;

    public LLamaLoadMode LoadMode => loadMode;

    public bool LoadMTP => inner.LoadMTP;
}
