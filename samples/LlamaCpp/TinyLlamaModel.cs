using System.Buffers.Binary;
using System.Text;

namespace Sharpi.Prefault.Samples.LlamaCpp;

/// <summary>
/// Writes a small GGUF model that llama.cpp loads as a "llama" architecture: random weights (so nothing it says is
/// meaningful), a byte-level SentencePiece vocabulary of 259 tokens, and every tensor the architecture requires
/// (token_embd, output_norm, output and per layer attn_norm, attn_q/k/v/output, ffn_norm, ffn_gate/up/down).
/// </summary>
/// <remarks>
/// The layout is ggml's docs/gguf.md: magic, version 3, tensor and key-value counts, the key-value pairs, the tensor
/// infos (dimensions innermost first), padding to <c>general.alignment</c> (32), then the data. The matrices are F32 or
/// Q4_0 (blocks of 32 weights: an F16 scale and 16 bytes of 4-bit values); llama.cpp's CPU backend repacks Q4_0
/// matrices into its own interleaved layout at load (its CPU_REPACK buffer), which F32 ones are not. Norms and the
/// embeddings stay F32.
/// </remarks>
internal static class TinyLlamaModel
{
    internal const int Embedding = 1024;
    internal const int FeedForward = 4096;
    internal const int Heads = 8;
    internal const int ContextLength = 2048;
    internal const int Vocabulary = 3 + 256;
    internal const int Bos = 1;

    private const uint Alignment = 32;

    internal enum WeightType
    {
        F32 = 0,
        Q4_0 = 2,
    }

    /// <summary>Bytes of one layer's matrices in <paramref name="type"/>.</summary>
    internal static long LayerBytes(WeightType type) => MatrixBytes(type, (4L * Embedding * Embedding) + (3L * Embedding * FeedForward));

    /// <summary>The layer count whose matrices come closest to <paramref name="bytes"/> (at least one).</summary>
    internal static int LayersFor(long bytes, WeightType type) => (int)Math.Max(1, bytes / LayerBytes(type));

    /// <summary>Writes the model and flushes it to the disk (written pages are dirty, and eviction leaves dirty pages).</summary>
    /// <param name="path">The file to write.</param>
    /// <param name="layers">The number of transformer blocks.</param>
    /// <param name="type">The matrices' type.</param>
    /// <param name="embedding">The hidden size (a multiple of 32 and of the 8 heads).</param>
    /// <param name="feedForward">The feed-forward size (a multiple of 32).</param>
    internal static void Write(string path, int layers, WeightType type, int embedding = Embedding, int feedForward = FeedForward)
    {
        var tensors = new List<(string Name, long[] Shape, WeightType Type)>
        {
            ("token_embd.weight", [embedding, Vocabulary], WeightType.F32),
        };
        for (int i = 0; i < layers; i++)
        {
            tensors.Add(($"blk.{i}.attn_norm.weight", [embedding], WeightType.F32));
            tensors.Add(($"blk.{i}.attn_q.weight", [embedding, embedding], type));
            tensors.Add(($"blk.{i}.attn_k.weight", [embedding, embedding], type));
            tensors.Add(($"blk.{i}.attn_v.weight", [embedding, embedding], type));
            tensors.Add(($"blk.{i}.attn_output.weight", [embedding, embedding], type));
            tensors.Add(($"blk.{i}.ffn_norm.weight", [embedding], WeightType.F32));
            tensors.Add(($"blk.{i}.ffn_gate.weight", [embedding, feedForward], type));
            tensors.Add(($"blk.{i}.ffn_up.weight", [embedding, feedForward], type));
            tensors.Add(($"blk.{i}.ffn_down.weight", [feedForward, embedding], type));
        }

        tensors.Add(("output_norm.weight", [embedding], WeightType.F32));
        tensors.Add(("output.weight", [embedding, Vocabulary], type));

        using (var stream = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, 1 << 20))
        using (var file = new BinaryWriter(stream))
        {
            file.Write("GGUF"u8);
            file.Write(3u);
            file.Write((ulong)tensors.Count);
            file.Write(15UL); // the key-value pairs below
            String(file, "general.architecture", "llama");
            String(file, "general.name", "sharpi-tiny-llama");
            UInt32(file, "general.file_type", type == WeightType.F32 ? 0u : 2u); // LLAMA_FTYPE_ALL_F32 / MOSTLY_Q4_0
            UInt32(file, "llama.context_length", ContextLength);
            UInt32(file, "llama.embedding_length", (uint)embedding);
            UInt32(file, "llama.block_count", (uint)layers);
            UInt32(file, "llama.feed_forward_length", (uint)feedForward);
            UInt32(file, "llama.attention.head_count", Heads);
            UInt32(file, "llama.attention.head_count_kv", Heads);
            Key(file, "llama.attention.layer_norm_rms_epsilon", 6);
            file.Write(1e-5f);
            String(file, "tokenizer.ggml.model", "llama");
            Vocab(file);

            long offset = 0;
            foreach ((string name, long[] shape, WeightType t) in tensors)
            {
                Str(file, name);
                file.Write((uint)shape.Length);
                foreach (long d in shape)
                {
                    file.Write((ulong)d);
                }

                file.Write((uint)t);
                file.Write((ulong)offset);
                offset = Align(offset + MatrixBytes(t, Elements(shape)));
            }

            Pad(file);
            var random = new XorShift(0x5eed);
            foreach ((string name, long[] shape, WeightType t) in tensors)
            {
                long elements = Elements(shape);
                if (name.EndsWith("norm.weight", StringComparison.Ordinal))
                {
                    for (long i = 0; i < elements; i++)
                    {
                        file.Write(1f);
                    }
                }
                else
                {
                    WriteRandom(file, t, elements, ref random);
                }

                Pad(file);
            }

            file.Flush();
            stream.Flush(flushToDisk: true);
        }
    }

    private static void Vocab(BinaryWriter file)
    {
        // SentencePiece with byte fallback: <unk>, <s>, </s>, then one token per byte (<0x0A> is the newline llama.cpp looks up).
        string[] tokens = ["<unk>", "<s>", "</s>", .. Enumerable.Range(0, 256).Select(b => $"<0x{b:X2}>")];
        Key(file, "tokenizer.ggml.tokens", 9);
        file.Write(8u);
        file.Write((ulong)tokens.Length);
        foreach (string t in tokens)
        {
            Str(file, t);
        }

        Key(file, "tokenizer.ggml.scores", 9);
        file.Write(6u);
        file.Write((ulong)tokens.Length);
        for (int i = 0; i < tokens.Length; i++)
        {
            file.Write(0f);
        }

        Key(file, "tokenizer.ggml.token_type", 9);
        file.Write(5u);
        file.Write((ulong)tokens.Length);
        file.Write(2); // LLAMA_TOKEN_TYPE_UNKNOWN
        file.Write(3); // CONTROL
        file.Write(3);
        for (int i = 3; i < tokens.Length; i++)
        {
            file.Write(6); // BYTE
        }

        UInt32(file, "tokenizer.ggml.bos_token_id", Bos);
    }

    private static void WriteRandom(BinaryWriter file, WeightType type, long elements, ref XorShift random)
    {
        byte[] buffer = new byte[1 << 20];
        long bytes = MatrixBytes(type, elements);
        int blockBytes = type == WeightType.F32 ? 4 : 18;
        int perBuffer = buffer.Length / blockBytes * blockBytes;
        for (long written = 0; written < bytes; written += perBuffer)
        {
            int n = (int)Math.Min(perBuffer, bytes - written);
            for (int i = 0; i < n; i += blockBytes)
            {
                ulong r = random.Next();
                if (type == WeightType.F32)
                {
                    // Uniform in [-0.05, 0.05): small enough that the activations stay finite through the layers.
                    BinaryPrimitives.WriteSingleLittleEndian(buffer.AsSpan(i), ((float)(r >> 40) / (1 << 24) - 0.5f) * 0.1f);
                }
                else
                {
                    BinaryPrimitives.WriteHalfLittleEndian(buffer.AsSpan(i), (Half)0.01f);
                    BinaryPrimitives.WriteUInt64LittleEndian(buffer.AsSpan(i + 2), r);
                    BinaryPrimitives.WriteUInt64LittleEndian(buffer.AsSpan(i + 10), random.Next());
                }
            }

            file.Write(buffer, 0, n);
        }
    }

    private static long MatrixBytes(WeightType type, long elements) => type == WeightType.F32 ? elements * 4 : elements / 32 * 18;

    private static long Elements(long[] shape)
    {
        long n = 1;
        foreach (long d in shape)
        {
            n *= d;
        }

        return n;
    }

    private static long Align(long offset) => (offset + Alignment - 1) / Alignment * Alignment;

    private static void Pad(BinaryWriter file)
    {
        long position = file.BaseStream.Position;
        file.Write(new byte[Align(position) - position]);
    }

    private static void String(BinaryWriter file, string key, string value)
    {
        Key(file, key, 8);
        Str(file, value);
    }

    private static void UInt32(BinaryWriter file, string key, uint value)
    {
        Key(file, key, 4);
        file.Write(value);
    }

    private static void Key(BinaryWriter file, string key, uint type)
    {
        Str(file, key);
        file.Write(type);
    }

    private static void Str(BinaryWriter file, string s)
    {
        byte[] utf8 = Encoding.UTF8.GetBytes(s);
        file.Write((ulong)utf8.Length);
        file.Write(utf8);
    }

    private struct XorShift(ulong state)
    {
        private ulong _state = state;

        internal ulong Next()
        {
            _state ^= _state << 13;
            _state ^= _state >> 7;
            _state ^= _state << 17;
            return _state;
        }
    }
}
