using System.Runtime.InteropServices;
using System.Runtime.Intrinsics.X86;

namespace Sharpi.Prefault.LLamaSharp;

/// <summary>
/// Which tensors llama.cpp's CPU backend repacks into its CPU_REPACK buffer at load, from their GGUF types and shapes:
/// ggml-cpu's repack.cpp as LLamaSharp 0.30.0 ships it (llama.cpp c0c7e147), on x86 with AVX2, interleaves the Q4_0,
/// Q4_K and IQ4_NL matrices whose row count (the second dimension) is a multiple of 8, where the matrix is the weight
/// of a matrix multiplication (a 2-D tensor, not an embedding table, which is read row by row).
/// </summary>
internal static class RepackRules
{
    /// <summary>True where this process's CPU has rules here.</summary>
    internal static bool AreKnown => RuntimeInformation.ProcessArchitecture is Architecture.X64 or Architecture.X86 && Avx2.IsSupported;

    /// <summary>The tensors predicted to be repacked, in file order; empty where the rules are unknown.</summary>
    internal static List<string> Predict(TensorIndex index)
    {
        var names = new List<string>();
        if (!AreKnown)
        {
            return names;
        }

        foreach (TensorInfo t in index.Tensors)
        {
            if (IsRepacked(t))
            {
                names.Add(t.Name);
            }
        }

        return names;
    }

    internal static bool IsRepacked(TensorInfo t) =>
        t.Shape.Count == 2
        && t.DType is "Q4_0" or "Q4_K" or "IQ4_NL"
        && t.Shape[1] % 8 == 0
        && !IsLookupTable(t.Name);

    // Embedding tables are read with GET_ROWS, which the repack buffer does not serve: token_embd, pos_embd, ...
    private static bool IsLookupTable(string name) => name.Contains("_embd", StringComparison.Ordinal);
}
