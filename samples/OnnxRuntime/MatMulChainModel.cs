using System.Buffers;
using System.Buffers.Binary;
using System.Globalization;
using System.Text;

namespace Sharpi.Prefault.Samples.OnnxRuntime;

/// <summary>
/// Writes an ONNX model as exporters write large ones: a chain of <c>MatMul</c> layers (<c>X[1, dim]</c> times
/// <c>W0 ... W(n-1)</c>, each <c>dim x dim</c> float32) whose weights live in an external data file beside the model,
/// each tensor at a 64 KiB-aligned offset (ONNX Runtime maps only aligned external data; unaligned data it reads
/// into its own buffers). The protobuf is encoded by hand: the few ModelProto fields used here need no generated code.
/// </summary>
/// <remarks>Shared, as a linked source file, by the sample, the bench's <c>engine</c> command and the tests.</remarks>
internal static class MatMulChainModel
{
    /// <summary>The alignment of each tensor in the external data file.</summary>
    internal const long Alignment = 64 * 1024;

    /// <summary>The name of the graph's input, a <c>[1, dim]</c> float tensor.</summary>
    internal const string InputName = "X";

    /// <summary>The name of the graph's output, a <c>[1, dim]</c> float tensor.</summary>
    internal const string OutputName = "Y";

    /// <summary>Bytes of one layer's weights.</summary>
    internal static long TensorBytes(int dim) => (long)dim * dim * sizeof(float);

    /// <summary>Bytes of the external data file for <paramref name="layers"/> layers of <paramref name="dim"/>.</summary>
    internal static long DataBytes(int layers, int dim) => ((layers - 1) * Stride(dim)) + TensorBytes(dim);

    /// <summary>
    /// Writes <paramref name="modelPath"/> and its weights, <paramref name="dataPath"/> (in the same folder: ONNX
    /// Runtime resolves the location relative to the model). The weights are uniform in +-1.7/sqrt(dim), so the
    /// activations keep their scale through the layers; the same seed writes the same bytes.
    /// </summary>
    internal static void Write(string modelPath, string dataPath, int layers, int dim, int seed = 2026)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(layers, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(dim, 1);
        if (!string.Equals(Path.GetDirectoryName(Path.GetFullPath(modelPath)), Path.GetDirectoryName(Path.GetFullPath(dataPath)), StringComparison.Ordinal))
        {
            throw new ArgumentException("The weights file must lie beside the model: ONNX Runtime resolves it relative to the model's folder.", nameof(dataPath));
        }

        WriteWeights(dataPath, layers, dim, seed);
        File.WriteAllBytes(modelPath, Model(Path.GetFileName(dataPath), layers, dim));
    }

    /// <summary>An input of the model's shape with deterministic values.</summary>
    internal static float[] Input(int dim)
    {
        float[] x = new float[dim];
        for (int i = 0; i < dim; i++)
        {
            x[i] = MathF.Sin(i);
        }

        return x;
    }

    private static long Stride(int dim) => (TensorBytes(dim) + Alignment - 1) / Alignment * Alignment;

    private static void WriteWeights(string dataPath, int layers, int dim, int seed)
    {
        var random = new Random(seed);
        float scale = 1.7f / MathF.Sqrt(dim);
        byte[] row = new byte[dim * sizeof(float)];
        using var stream = new FileStream(dataPath, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 20);
        for (int layer = 0; layer < layers; layer++)
        {
            stream.Position = layer * Stride(dim);
            for (int r = 0; r < dim; r++)
            {
                for (int c = 0; c < dim; c++)
                {
                    BinaryPrimitives.WriteSingleLittleEndian(row.AsSpan(c * sizeof(float)), ((float)random.NextDouble() * 2 - 1) * scale);
                }

                stream.Write(row);
            }
        }
    }

    private static byte[] Model(string dataFileName, int layers, int dim)
    {
        var graph = new Protobuf();
        for (int layer = 0; layer < layers; layer++)
        {
            // NodeProto: input = 1, output = 2, name = 3, op_type = 4.
            graph.Message(1, new Protobuf()
                .String(1, layer == 0 ? InputName : Hidden(layer))
                .String(1, Weight(layer))
                .String(2, layer == layers - 1 ? OutputName : Hidden(layer + 1))
                .String(3, $"matmul{layer}")
                .String(4, "MatMul"));
        }

        graph.String(2, "matmul_chain"); // GraphProto.name
        for (int layer = 0; layer < layers; layer++)
        {
            // TensorProto: dims = 1, data_type = 2 (FLOAT = 1), name = 8, external_data = 13, data_location = 14 (EXTERNAL = 1).
            graph.Message(5, new Protobuf()
                .Varint(1, dim).Varint(1, dim).Varint(2, 1).String(8, Weight(layer))
                .Message(13, Entry("location", dataFileName))
                .Message(13, Entry("offset", (layer * Stride(dim)).ToString(CultureInfo.InvariantCulture)))
                .Message(13, Entry("length", TensorBytes(dim).ToString(CultureInfo.InvariantCulture)))
                .Varint(14, 1));
        }

        graph.Message(11, ValueInfo(InputName, dim)).Message(12, ValueInfo(OutputName, dim)); // input = 11, output = 12

        // ModelProto: ir_version = 1, producer_name = 2, graph = 7, opset_import = 8 (domain 1, version 2).
        return new Protobuf().Varint(1, 8).String(2, "Sharpi.Prefault").Message(7, graph)
            .Message(8, new Protobuf().String(1, string.Empty).Varint(2, 17)).ToArray();
    }

    private static string Weight(int layer) => $"W{layer}";

    private static string Hidden(int layer) => $"h{layer}";

    private static Protobuf Entry(string key, string value) => new Protobuf().String(1, key).String(2, value);

    /// <summary>ValueInfoProto { name = 1, type = 2: TypeProto { tensor_type = 1: { elem_type = 1, shape = 2 } } } of a [1, dim] float.</summary>
    private static Protobuf ValueInfo(string name, int dim)
    {
        var shape = new Protobuf().Message(1, new Protobuf().Varint(1, 1)).Message(1, new Protobuf().Varint(1, dim));
        return new Protobuf().String(1, name).Message(2, new Protobuf().Message(1, new Protobuf().Varint(1, 1).Message(2, shape)));
    }

    /// <summary>The protobuf wire format's two field kinds used here: varints and length-delimited bytes.</summary>
    private sealed class Protobuf
    {
        // Not a MemoryStream: a disposable field would make the class need disposing (CA1001) for nothing.
        private readonly ArrayBufferWriter<byte> _bytes = new();

        internal Protobuf Varint(int field, long value)
        {
            Key(field, 0);
            WriteVarint((ulong)value);
            return this;
        }

        internal Protobuf String(int field, string value) => Bytes(field, Encoding.UTF8.GetBytes(value));

        internal Protobuf Message(int field, Protobuf value) => Bytes(field, value.ToArray());

        internal byte[] ToArray() => _bytes.WrittenSpan.ToArray();

        private Protobuf Bytes(int field, byte[] value)
        {
            Key(field, 2);
            WriteVarint((ulong)value.Length);
            _bytes.Write(value.AsSpan());
            return this;
        }

        private void Key(int field, int wireType) => WriteVarint((ulong)((field << 3) | wireType));

        private void WriteVarint(ulong value)
        {
            while (value >= 0x80)
            {
                WriteByte((byte)(value | 0x80));
                value >>= 7;
            }

            WriteByte((byte)value);
        }

        private void WriteByte(byte value)
        {
            _bytes.GetSpan(1)[0] = value;
            _bytes.Advance(1);
        }
    }
}
