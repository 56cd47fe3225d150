namespace Sharpi.Prefault.LLamaSharp;

/// <summary>How <see cref="LLamaLoadResult.RepackedTensors"/> was learned.</summary>
public enum RepackSource
{
    /// <summary>
    /// Neither source was available: no live <see cref="LLamaLogTap"/>, and either no repack rules known for this CPU
    /// or a read mode (it maps nothing, so the load does not read the tensor table to predict).
    /// </summary>
    Unknown = 0,

    /// <summary>From llama.cpp's own log lines, through a live <see cref="LLamaLogTap"/>: exactly the tensors it copied.</summary>
    Log = 1,

    /// <summary>Predicted from the GGUF's tensor types and shapes and this CPU's repack rules (x86 with AVX2: Q4_0, Q4_K and IQ4_NL matrices of a multiple of 8 rows).</summary>
    Prediction = 2,
}
