namespace Sharpi.Prefault;

/// <summary>One tensor of a model file: where its bytes lie and what they hold.</summary>
/// <param name="Name">The tensor's name as stored in the file (for example <c>blk.0.attn_q.weight</c>).</param>
/// <param name="DType">
/// The element type as the format spells it: a ggml type name for GGUF (<c>F16</c>, <c>Q4_K</c>, <c>IQ2_XXS</c>),
/// the safetensors dtype otherwise (<c>BF16</c>, <c>F8_E4M3</c>).
/// </param>
/// <param name="Shape">
/// The dimensions as stored: GGUF lists the fastest-varying dimension first (ggml's <c>ne</c>), safetensors
/// lists it last (row-major).
/// </param>
/// <param name="Offset">Absolute byte offset of the tensor's data in <paramref name="FilePath"/>.</param>
/// <param name="Length">Length of the tensor's data in bytes.</param>
/// <param name="FilePath">The file holding the tensor's data (the shard, for sharded models).</param>
public sealed record TensorInfo(string Name, string DType, IReadOnlyList<long> Shape, long Offset, long Length, string FilePath)
{
    /// <summary>One past the tensor's last byte in <see cref="FilePath"/>.</summary>
    public long End => Offset + Length;

    // The generated one prints Shape as its type's name (System.Int64[]); this prints the dimensions.
    private bool PrintMembers(System.Text.StringBuilder builder)
    {
        builder.Append("Name = ").Append(Name).Append(", DType = ").Append(DType).Append(", Shape = [").AppendJoin(", ", Shape)
            .Append("], Offset = ").Append(Offset).Append(", Length = ").Append(Length).Append(", FilePath = ").Append(FilePath)
            .Append(", End = ").Append(End);
        return true;
    }
}
