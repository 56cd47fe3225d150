using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Text;

namespace Sharpi.Prefault.Tests.Models;

/// <summary>
/// Writes GGUF files byte for byte to ggml's docs/gguf.md: magic, uint32 version, uint64 tensor and KV counts,
/// KV pairs (uint64-length strings), tensor infos (name, uint32 n_dims, uint64 dims, uint32 type, uint64 offset),
/// padding to the alignment, then the data.
/// </summary>
internal sealed class GgufBuilder
{
    private readonly List<(string Key, uint Type, byte[] Value)> _kvs = [];
    private readonly List<(byte[] Name, long[] Shape, uint Type, ulong Offset)> _tensors = [];

    public uint Version { get; set; } = 3;

    public uint Alignment { get; private set; } = 32;

    /// <summary>Bytes of tensor data after the data start (zero-filled unless <see cref="FillData"/>).</summary>
    public long DataLength { get; set; }

    public bool FillData { get; set; } = true;

    public GgufBuilder String(string key, string value) => Kv(key, 8, Str(value));

    public GgufBuilder UInt32(string key, uint value)
    {
        if (key == "general.alignment")
        {
            Alignment = value;
        }

        byte[] b = new byte[4];
        BinaryPrimitives.WriteUInt32LittleEndian(b, value);
        return Kv(key, 4, b);
    }

    public GgufBuilder StringArray(string key, params string[] values)
    {
        var ms = new MemoryStream();
        ms.Write(U32(8));
        ms.Write(U64((ulong)values.Length));
        foreach (string v in values)
        {
            ms.Write(Str(v));
        }

        return Kv(key, 9, ms.ToArray());
    }

    public GgufBuilder Kv(string key, uint type, byte[] value)
    {
        _kvs.Add((key, type, value));
        return this;
    }

    /// <summary>Adds a tensor at <paramref name="offset"/> (relative to the data start); grows the data section to hold it.</summary>
    public GgufBuilder Tensor(string name, uint ggmlType, long[] shape, ulong offset, long bytes) =>
        Tensor(Encoding.UTF8.GetBytes(name), ggmlType, shape, offset, bytes);

    /// <summary>Adds a tensor named by raw bytes (GGUF names need not be valid UTF-8).</summary>
    public GgufBuilder Tensor(byte[] name, uint ggmlType, long[] shape, ulong offset, long bytes)
    {
        _tensors.Add((name, shape, ggmlType, offset));
        DataLength = Math.Max(DataLength, (long)offset + bytes);
        return this;
    }

    /// <summary>Adds tensors back to back, each at the next aligned offset.</summary>
    public GgufBuilder F32(string name, params long[] shape) => F32(Encoding.UTF8.GetBytes(name), shape);

    /// <summary>The same, named by raw bytes.</summary>
    public GgufBuilder F32(byte[] name, params long[] shape)
    {
        long bytes = 4;
        foreach (long d in shape)
        {
            bytes *= d;
        }

        ulong offset = (ulong)((DataLength + Alignment - 1) / Alignment * Alignment);
        return Tensor(name, 0, shape, offset, bytes);
    }

    public byte[] Build() => Build(out _);

    public byte[] Build(out long dataStart)
    {
        var ms = new MemoryStream();
        ms.Write("GGUF"u8);
        ms.Write(U32(Version));
        ms.Write(U64((ulong)_tensors.Count));
        ms.Write(U64((ulong)_kvs.Count));
        foreach (var (key, type, value) in _kvs)
        {
            ms.Write(Str(key));
            ms.Write(U32(type));
            ms.Write(value);
        }

        foreach (var (name, shape, type, offset) in _tensors)
        {
            ms.Write(U64((ulong)name.Length));
            ms.Write(name);
            ms.Write(U32((uint)shape.Length));
            foreach (long d in shape)
            {
                ms.Write(U64((ulong)d));
            }

            ms.Write(U32(type));
            ms.Write(U64(offset));
        }

        dataStart = (ms.Length + Alignment - 1) / Alignment * Alignment;
        ms.SetLength(dataStart);
        ms.Position = dataStart;
        byte[] data = new byte[DataLength];
        if (FillData)
        {
            for (int i = 0; i < data.Length; i++)
            {
                data[i] = (byte)((i * 31) + 7);
            }
        }

        ms.Write(data);
        return ms.ToArray();
    }

    internal static byte[] Str(string s)
    {
        byte[] utf8 = Encoding.UTF8.GetBytes(s);
        return [.. U64((ulong)utf8.Length), .. utf8];
    }

    internal static byte[] U32(uint v)
    {
        byte[] b = new byte[4];
        BinaryPrimitives.WriteUInt32LittleEndian(b, v);
        return b;
    }

    internal static byte[] U64(ulong v)
    {
        byte[] b = new byte[8];
        BinaryPrimitives.WriteUInt64LittleEndian(b, v);
        return b;
    }
}

/// <summary>
/// Writes safetensors files byte for byte to huggingface/safetensors' README: uint64 little-endian header size N,
/// N bytes of JSON ({"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}}), then data.
/// </summary>
internal sealed class SafetensorsBuilder
{
    private readonly List<string> _entries = [];

    public long DataLength { get; set; }

    public SafetensorsBuilder Metadata(string json = "{\"format\":\"pt\"}")
    {
        _entries.Add($"\"__metadata__\":{json}");
        return this;
    }

    /// <summary>Adds a tensor after the previous one.</summary>
    public SafetensorsBuilder Tensor(string name, string dtype, long[] shape, int bytesPerElement)
    {
        long bytes = bytesPerElement;
        foreach (long d in shape)
        {
            bytes *= d;
        }

        return Raw(name, $"{{\"dtype\":\"{dtype}\",\"shape\":[{string.Join(',', shape)}],\"data_offsets\":[{DataLength},{DataLength + bytes}]}}", bytes);
    }

    /// <summary>Adds an entry with the given JSON value, growing the data section by <paramref name="dataBytes"/>.</summary>
    public SafetensorsBuilder Raw(string name, string jsonValue, long dataBytes = 0)
    {
        _entries.Add($"\"{name}\":{jsonValue}");
        DataLength += dataBytes;
        return this;
    }

    public string HeaderJson() => "{" + string.Join(',', _entries) + "}";

    public byte[] Build() => Build(HeaderJson());

    public byte[] Build(string headerJson, int padTo = 8)
    {
        byte[] header = Encoding.UTF8.GetBytes(headerJson);
        // The reference writer pads the header with spaces so the data starts 8-byte aligned.
        int padded = (header.Length + padTo - 1) / padTo * padTo;
        var ms = new MemoryStream();
        ms.Write(GgufBuilder.U64((ulong)padded));
        ms.Write(header);
        for (int i = header.Length; i < padded; i++)
        {
            ms.WriteByte((byte)' ');
        }

        for (long i = 0; i < DataLength; i++)
        {
            ms.WriteByte((byte)((i * 13) + 1));
        }

        return ms.ToArray();
    }
}

/// <summary>A temporary directory for model files, deleted on dispose.</summary>
internal sealed class TempModelDirectory : IDisposable
{
    public TempModelDirectory()
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"sharpi-models-{Guid.NewGuid():N}");
        Directory.CreateDirectory(Path);
    }

    public string Path { get; }

    public string Write(string name, byte[] bytes)
    {
        string file = System.IO.Path.Combine(Path, name);
        File.WriteAllBytes(file, bytes);
        return file;
    }

    public string Write(string name, string text) => Write(name, Encoding.UTF8.GetBytes(text));

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
            // Best effort: a failed test may still hold a file open on Windows.
        }
    }
}

internal static class ModelTestPaths
{
    /// <summary>
    /// Where the fixtures and the corpus are: copied next to the test assembly by the project file. Source paths
    /// are no guide, since a CI build (ContinuousIntegrationBuild) maps them to /_/.
    /// </summary>
    public static string SourceDirectory() => System.IO.Path.Combine(AppContext.BaseDirectory, "Models");
}

/// <summary>Base of the reader tests: a temp directory and helpers that write bytes to a file and read it back.</summary>
public abstract class ModelFileTests(string defaultName) : IDisposable
{
    private protected TempModelDirectory Files { get; } = new();

    public void Dispose()
    {
        Files.Dispose();
        GC.SuppressFinalize(this);
    }

    private protected TensorIndex Read(byte[] bytes, string? name = null) => TensorIndex.Read(Files.Write(name ?? defaultName, bytes));

    private protected ModelFormatException ReadFails(byte[] bytes) => Assert.Throws<ModelFormatException>(() => Read(bytes));
}
