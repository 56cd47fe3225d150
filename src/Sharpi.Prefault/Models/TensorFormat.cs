namespace Sharpi.Prefault;

/// <summary>The container format a <see cref="TensorIndex"/> was read from.</summary>
public enum TensorFormat
{
    /// <summary>No format: the default value, never the format of a <see cref="TensorIndex"/>.</summary>
    Unknown = 0,

    /// <summary>A GGUF file (llama.cpp / ggml), version 2 or 3.</summary>
    Gguf = 1,

    /// <summary>A single safetensors file.</summary>
    Safetensors = 2,

    /// <summary>A sharded safetensors model read through its <c>model.safetensors.index.json</c>.</summary>
    ShardedSafetensors = 3,
}
