using System.Buffers.Binary;
using System.Text;

namespace Sharpi.Prefault.Samples.LLamaSharp;

/// <summary>
/// Writes a GGUF model that llama.cpp (and so LLamaSharp) loads as a "llama" architecture: random weights (so nothing
/// it says is meaningful, but every run says the same), a byte-level SentencePiece vocabulary of 259 tokens, and every
/// tensor the architecture requires (token_embd, output_norm, output and per block attn_norm, attn_q/k/v/output,
/// ffn_norm, ffn_gate/up/down). The sample, the bench's <c>llamasharp</c> command and the tests share it.
/// </summary>
/// <remarks>
/// The layout is ggml's docs/gguf.md: magic, version 3, tensor and key-value counts, the key-value pairs, the tensor
/// infos (dimensions innermost first), padding to <c>general.alignment</c> (32), then the data. The block matrices are
/// of one <see cref="WeightType"/>; norms and the embeddings stay F32, and <c>output.weight</c> (259 rows, not a
/// multiple of 8) takes the matrices' type too. On x86 with AVX2, llama.cpp's CPU backend repacks Q4_0, Q4_K and IQ4_NL
/// matrices whose row count is a multiple of 8 into its own interleaved layout at load (its CPU_REPACK buffer): here
/// every block matrix, and not <c>output.weight</c>.
/// </remarks>
internal static class TinyLlamaModel
{
    internal const int Vocabulary = 3 + 256;
    internal const int Bos = 1;

    private const uint Alignment = 32;

    /// <summary>The matrices' ggml type (the value is ggml's <c>enum ggml_type</c>).</summary>
    internal enum WeightType
    {
        F32 = 0,
        Q4_0 = 2,
        Q8_0 = 8,
        Q4_K = 12,
        IQ4_NL = 20,
    }

    /// <summary>The model's sizes.</summary>
    /// <param name="Layers">Transformer blocks.</param>
    /// <param name="Embedding">Hidden size (a multiple of 256 for the K types, of 32 otherwise, and of <paramref name="Heads"/>).</param>
    /// <param name="FeedForward">Feed-forward size (a multiple of 256 for the K types, of 32 otherwise).</param>
    /// <param name="Heads">Attention heads (and KV heads).</param>
    internal readonly record struct Shape(int Layers, int Embedding, int FeedForward, int Heads)
    {
        /// <summary>Blocks of llama-2-7B's shape (4096 wide, 11008 feed-forward, 32 heads): about 109 MiB each in Q4_0.</summary>
        internal static Shape Llama2_7B(int layers) => new(layers, 4096, 11008, 32);

        /// <summary>Small blocks for tests: 512 wide, 1024 feed-forward, 8 heads (about 1.6 MiB each in Q4_0).</summary>
        internal static Shape Tiny(int layers) => new(layers, 512, 1024, 8);

        /// <summary>Bytes of one block's matrices in <paramref name="type"/>.</summary>
        internal long LayerBytes(WeightType type) => MatrixBytes(type, (4L * Embedding * Embedding) + (3L * Embedding * FeedForward));

        /// <summary>The block count whose matrices come closest to <paramref name="bytes"/> (at least one), at this width.</summary>
        internal Shape WithLayersFor(long bytes, WeightType type) => this with { Layers = (int)Math.Max(1, bytes / LayerBytes(type)) };
    }

    /// <summary>The tensors <see cref="Write"/> writes, in file order: name, dimensions (innermost first), type.</summary>
    internal static List<(string Name, long[] Dims, WeightType Type)> Tensors(Shape shape, WeightType type)
    {
        (int e, int f) = (shape.Embedding, shape.FeedForward);
        var tensors = new List<(string, long[], WeightType)> { ("token_embd.weight", [e, Vocabulary], WeightType.F32) };
        for (int i = 0; i < shape.Layers; i++)
        {
            tensors.Add(($"blk.{i}.attn_norm.weight", [e], WeightType.F32));
            tensors.Add(($"blk.{i}.attn_q.weight", [e, e], type));
            tensors.Add(($"blk.{i}.attn_k.weight", [e, e], type));
            tensors.Add(($"blk.{i}.attn_v.weight", [e, e], type));
            tensors.Add(($"blk.{i}.attn_output.weight", [e, e], type));
            tensors.Add(($"blk.{i}.ffn_norm.weight", [e], WeightType.F32));
            tensors.Add(($"blk.{i}.ffn_gate.weight", [e, f], type));
            tensors.Add(($"blk.{i}.ffn_up.weight", [e, f], type));
            tensors.Add(($"blk.{i}.ffn_down.weight", [f, e], type));
        }

        tensors.Add(("output_norm.weight", [e], WeightType.F32));
        // A K type needs rows of 256 elements; output's rows are `e` wide, so it can take them.
        tensors.Add(("output.weight", [e, Vocabulary], type));
        return tensors;
    }

    /// <summary>Writes the model and flushes it to the disk (written pages are dirty, and eviction leaves dirty pages).</summary>
    internal static void Write(string path, Shape shape, WeightType type)
    {
        List<(string Name, long[] Dims, WeightType Type)> tensors = Tensors(shape, type);
        using (var stream = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, 1 << 20))
        using (var file = new BinaryWriter(stream))
        {
            file.Write("GGUF"u8);
            file.Write(3u);
            file.Write((ulong)tensors.Count);
            file.Write(15UL); // the key-value pairs below
            String(file, "general.architecture", "llama");
            String(file, "general.name", "sharpi-tiny-llama");
            UInt32(file, "general.file_type", FileType(type));
            UInt32(file, "llama.context_length", 2048);
            UInt32(file, "llama.embedding_length", (uint)shape.Embedding);
            UInt32(file, "llama.block_count", (uint)shape.Layers);
            UInt32(file, "llama.feed_forward_length", (uint)shape.FeedForward);
            UInt32(file, "llama.attention.head_count", (uint)shape.Heads);
            UInt32(file, "llama.attention.head_count_kv", (uint)shape.Heads);
            Key(file, "llama.attention.layer_norm_rms_epsilon", 6);
            file.Write(1e-5f);
            String(file, "tokenizer.ggml.model", "llama");
            Vocab(file);

            long offset = 0;
            foreach ((string name, long[] dims, WeightType t) in tensors)
            {
                Str(file, name);
                file.Write((uint)dims.Length);
                foreach (long d in dims)
                {
                    file.Write((ulong)d);
                }

                file.Write((uint)t);
                file.Write((ulong)offset);
                offset = Align(offset + MatrixBytes(t, Elements(dims)));
            }

            Pad(file);
            var random = new XorShift(0x5eed);
            foreach ((string name, long[] dims, WeightType t) in tensors)
            {
                long elements = Elements(dims);
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

    // LLAMA_FTYPE_ALL_F32, MOSTLY_Q4_0, MOSTLY_Q8_0, MOSTLY_Q4_K_M, MOSTLY_IQ4_NL.
    private static uint FileType(WeightType type) => type switch
    {
        WeightType.F32 => 0,
        WeightType.Q4_0 => 2,
        WeightType.Q8_0 => 7,
        WeightType.Q4_K => 15,
        _ => 25,
    };

    /// <summary>Elements per block and bytes per block of a type (ggml's block_q4_0 etc.).</summary>
    private static (int Elements, int Bytes) Block(WeightType type) => type switch
    {
        WeightType.F32 => (1, 4),
        WeightType.Q4_0 => (32, 18),   // fp16 d, 16 bytes of nibbles
        WeightType.Q8_0 => (32, 34),   // fp16 d, 32 int8
        WeightType.Q4_K => (256, 144), // fp16 d, fp16 dmin, 12 bytes of scales, 128 of nibbles
        _ => (32, 18),                 // IQ4_NL: fp16 d, 16 bytes of nibbles
    };

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
        int blockBytes = Block(type).Bytes;
        int perBuffer = buffer.Length / blockBytes * blockBytes;
        for (long written = 0; written < bytes; written += perBuffer)
        {
            int n = (int)Math.Min(perBuffer, bytes - written);
            if (type == WeightType.F32)
            {
                for (int i = 0; i < n; i += 4)
                {
                    // Uniform in [-0.05, 0.05): small enough that the activations stay finite through the layers.
                    BinaryPrimitives.WriteSingleLittleEndian(buffer.AsSpan(i), ((float)(random.Next() >> 40) / (1 << 24) - 0.5f) * 0.1f);
                }
            }
            else
            {
                for (int i = 0; i < n; i += 8)
                {
                    BinaryPrimitives.WriteUInt64LittleEndian(buffer.AsSpan(i), random.Next());
                }

                // Each block's scales small and finite (random bits there could be NaN or huge): d = 0.01, dmin = 0.
                for (int i = 0; i < n; i += blockBytes)
                {
                    BinaryPrimitives.WriteHalfLittleEndian(buffer.AsSpan(i), (Half)0.01f);
                    if (type == WeightType.Q4_K)
                    {
                        BinaryPrimitives.WriteHalfLittleEndian(buffer.AsSpan(i + 2), (Half)0f);
                    }
                }
            }

            file.Write(buffer, 0, n);
        }
    }

    private static long MatrixBytes(WeightType type, long elements) => elements / Block(type).Elements * Block(type).Bytes;

    private static long Elements(long[] dims)
    {
        long n = 1;
        foreach (long d in dims)
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
