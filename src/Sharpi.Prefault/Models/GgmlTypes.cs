namespace Sharpi.Prefault;

/// <summary>Elements and bytes per block of the ggml tensor types, by their on-disk number.</summary>
internal static class GgmlTypes
{
    private const int QK_K = 256;

    internal static bool TryGet(uint type, out string name, out int blockSize, out int typeSize)
    {
        (name, blockSize, typeSize) = type switch
        {
            0 => ("F32", 1, 4),
            1 => ("F16", 1, 2),
            2 => ("Q4_0", 32, 2 + 16),
            3 => ("Q4_1", 32, 2 + 2 + 16),
            6 => ("Q5_0", 32, 2 + 4 + 16),
            7 => ("Q5_1", 32, 2 + 2 + 4 + 16),
            8 => ("Q8_0", 32, 2 + 32),
            // ggml stores Q8_1's d and s as halves (36 bytes); older gguf-py tables say floats (40).
            9 => ("Q8_1", 32, 2 + 2 + 32),
            10 => ("Q2_K", QK_K, 2 + 2 + (QK_K / 16) + (QK_K / 4)),
            11 => ("Q3_K", QK_K, 2 + (QK_K / 4) + (QK_K / 8) + 12),
            12 => ("Q4_K", QK_K, 2 + 2 + (QK_K / 2) + 12),
            13 => ("Q5_K", QK_K, 2 + 2 + (QK_K / 2) + (QK_K / 8) + 12),
            14 => ("Q6_K", QK_K, 2 + (QK_K / 2) + (QK_K / 4) + (QK_K / 16)),
            15 => ("Q8_K", QK_K, 4 + QK_K + (QK_K / 8)),
            16 => ("IQ2_XXS", QK_K, 2 + (QK_K / 4)),
            17 => ("IQ2_XS", QK_K, 2 + (QK_K / 4) + (QK_K / 32)),
            18 => ("IQ3_XXS", QK_K, 2 + (QK_K / 4) + (QK_K / 8)),
            19 => ("IQ1_S", QK_K, 2 + (QK_K / 8) + (QK_K / 16)),
            20 => ("IQ4_NL", 32, 2 + 16),
            21 => ("IQ3_S", QK_K, 2 + (QK_K / 4) + (QK_K / 8) + (QK_K / 32) + 4),
            22 => ("IQ2_S", QK_K, 2 + (QK_K / 4) + (QK_K / 16)),
            23 => ("IQ4_XS", QK_K, 2 + 2 + (QK_K / 2) + (QK_K / 64)),
            24 => ("I8", 1, 1),
            25 => ("I16", 1, 2),
            26 => ("I32", 1, 4),
            27 => ("I64", 1, 8),
            28 => ("F64", 1, 8),
            29 => ("IQ1_M", QK_K, (QK_K / 8) + (QK_K / 16) + (QK_K / 32)),
            30 => ("BF16", 1, 2),
            34 => ("TQ1_0", QK_K, 2 + (4 * 13)),
            35 => ("TQ2_0", QK_K, 2 + 64),
            39 => ("MXFP4", 32, 1 + 16),
            40 => ("NVFP4", 64, 4 + 32),
            41 => ("Q1_0", 128, 2 + 16),
            42 => ("Q2_0", 64, 2 + 16),
            _ => (string.Empty, 0, 0),
        };
        return blockSize != 0;
    }
}
