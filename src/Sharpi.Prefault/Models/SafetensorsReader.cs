using System.Buffers.Binary;
using System.Diagnostics.CodeAnalysis;
using System.Text.Json;

namespace Sharpi.Prefault;

/// <summary>
/// Reads the header of a safetensors file (spec: huggingface/safetensors README, "Format"): an 8-byte
/// little-endian header length N, N bytes of UTF-8 JSON mapping tensor names to dtype, shape and
/// <c>data_offsets</c> (relative to the byte after the header), and an optional <c>__metadata__</c> entry.
/// </summary>
internal static class SafetensorsReader
{
    /// <summary>The reference implementation refuses headers over 100 MB; so do we, before allocating.</summary>
    internal const long MaxHeaderBytes = 100L << 20;

    private const string MetadataKey = "__metadata__";

    internal static List<TensorInfo> Read(Stream stream, string path)
    {
        var reader = new HeaderReader(stream, path);
        ulong headerLength = reader.ReadUInt64();
        if (headerLength > MaxHeaderBytes)
        {
            reader.Fail(0, $"the header length is {headerLength} bytes, more than the {MaxHeaderBytes} bytes safetensors allows.");
        }

        if (headerLength > (ulong)reader.Remaining)
        {
            reader.Fail(0, $"the header length is {headerLength} bytes but only {reader.Remaining} bytes follow it.");
        }

        byte[] header = reader.ReadBytes((long)headerLength);
        long dataStart = 8 + (long)headerLength;
        return Parse(header, path, headerAt: 8, dataStart, reader.Length);
    }

    /// <summary>Parses a header already in memory; offsets in errors are file offsets (<paramref name="headerAt"/> + index).</summary>
    internal static List<TensorInfo> Parse(ReadOnlySpan<byte> header, string path, long headerAt, long dataStart, long fileLength)
    {
        var tensors = new List<TensorInfo>();
        var names = new HashSet<string>(StringComparer.Ordinal);
        var json = new Utf8JsonReader(header, new JsonReaderOptions { CommentHandling = JsonCommentHandling.Disallow, MaxDepth = 64 });
        try
        {
            Expect(ref json, JsonTokenType.StartObject, path, headerAt, "the header must be a JSON object");
            while (Next(ref json, path, headerAt) == JsonTokenType.PropertyName)
            {
                long at = headerAt + json.TokenStartIndex;
                string name = json.GetString()!;
                if (!names.Add(name))
                {
                    ThrowHelper.ThrowModelFormat(path, at, $"tensor name '{name}' appears twice.");
                }

                if (name == MetadataKey)
                {
                    Next(ref json, path, headerAt);
                    json.Skip();
                    continue;
                }

                tensors.Add(ReadTensor(ref json, name, at, path, headerAt, dataStart, fileLength));
            }

            if (json.TokenType != JsonTokenType.EndObject)
            {
                Fail(ref json, path, headerAt, "expected a tensor name");
            }

            if (json.Read())
            {
                Fail(ref json, path, headerAt, "unexpected content after the header object");
            }
        }
        catch (JsonException e)
        {
            ThrowHelper.ThrowModelFormat(path, headerAt + json.BytesConsumed, $"the header is not valid JSON: {e.Message}", e);
        }
        catch (InvalidOperationException e)
        {
            // Utf8JsonReader.GetString and friends throw this for tokens of the wrong kind or invalid UTF-8.
            ThrowHelper.ThrowModelFormat(path, headerAt + json.TokenStartIndex, $"the header holds an invalid value: {e.Message}", e);
        }

        return tensors;
    }

    private static TensorInfo ReadTensor(ref Utf8JsonReader json, string name, long at, string path, long headerAt, long dataStart, long fileLength)
    {
        Expect(ref json, JsonTokenType.StartObject, path, headerAt, $"tensor '{name}' must be a JSON object");
        string? dtype = null;
        long[]? shape = null;
        long begin = -1, end = -1;
        while (Next(ref json, path, headerAt) == JsonTokenType.PropertyName)
        {
            if (json.ValueTextEquals("dtype"u8))
            {
                Expect(ref json, JsonTokenType.String, path, headerAt, $"tensor '{name}': dtype must be a string");
                dtype = json.GetString()!;
            }
            else if (json.ValueTextEquals("shape"u8))
            {
                shape = ReadCounts(ref json, path, headerAt, name, "shape", maxCount: 64);
            }
            else if (json.ValueTextEquals("data_offsets"u8))
            {
                long[] offsets = ReadCounts(ref json, path, headerAt, name, "data_offsets", maxCount: 2);
                if (offsets.Length != 2 || offsets[0] > offsets[1])
                {
                    Fail(ref json, path, headerAt, $"tensor '{name}': data_offsets must be [begin, end] with begin <= end");
                }

                (begin, end) = (offsets[0], offsets[1]);
            }
            else
            {
                Next(ref json, path, headerAt);
                json.Skip();
            }
        }

        if (dtype is null || shape is null || begin < 0)
        {
            ThrowHelper.ThrowModelFormat(path, at, $"tensor '{name}' lacks {(dtype is null ? "dtype" : shape is null ? "shape" : "data_offsets")}.");
        }

        int bits = BitsPerElement(dtype);
        if (bits == 0)
        {
            ThrowHelper.ThrowModelFormat(path, at, $"tensor '{name}' has unknown dtype '{dtype}'.");
        }

        long elements = 1;
        foreach (long extent in shape)
        {
            if (!GgufReader.TryMultiply(ref elements, extent))
            {
                ThrowHelper.ThrowModelFormat(path, at, $"tensor '{name}' has a shape whose element count overflows a 64-bit count.");
            }
        }

        long expected = elements;
        if (!GgufReader.TryMultiply(ref expected, bits) || expected % 8 != 0)
        {
            ThrowHelper.ThrowModelFormat(path, at, $"tensor '{name}' of {dtype} with {elements} elements does not fill a whole number of bytes.");
        }

        expected /= 8;
        if (end - begin != expected)
        {
            ThrowHelper.ThrowModelFormat(path, at,
                $"tensor '{name}' of {dtype} {FormatShape(shape)} needs {expected} bytes but its data_offsets [{begin}, {end}] span {end - begin}.");
        }

        if (end > fileLength - dataStart)
        {
            ThrowHelper.ThrowModelFormat(path, at,
                $"tensor '{name}' data_offsets [{begin}, {end}] run past the end of the file (the data section holds {fileLength - dataStart} bytes).");
        }

        return new TensorInfo(name, dtype, shape, dataStart + begin, end - begin, path);
    }

    private static long[] ReadCounts(ref Utf8JsonReader json, string path, long headerAt, string name, string what, int maxCount)
    {
        Expect(ref json, JsonTokenType.StartArray, path, headerAt, $"tensor '{name}': {what} must be an array of integers");
        var values = new List<long>();
        while (Next(ref json, path, headerAt) != JsonTokenType.EndArray)
        {
            long value = -1;
            if (json.TokenType != JsonTokenType.Number || !json.TryGetInt64(out value) || value < 0)
            {
                Fail(ref json, path, headerAt, $"tensor '{name}': {what} must hold non-negative integers");
            }

            if (values.Count == maxCount)
            {
                Fail(ref json, path, headerAt, $"tensor '{name}': {what} has more than {maxCount} entries");
            }

            values.Add(value);
        }

        return [.. values];
    }

    /// <summary>Bits per element of a safetensors dtype; 0 when unknown. Sub-byte types pack elements densely.</summary>
    internal static int BitsPerElement(string dtype) => dtype switch
    {
        "BOOL" or "U8" or "I8" or "F8_E5M2" or "F8_E4M3" or "F8_E8M0" => 8,
        "I16" or "U16" or "F16" or "BF16" => 16,
        "I32" or "U32" or "F32" => 32,
        "I64" or "U64" or "F64" or "C64" => 64,
        "F4" => 4,
        "F6_E2M3" or "F6_E3M2" => 6,
        _ => 0,
    };

    private static string FormatShape(long[] shape) => "[" + string.Join(", ", shape) + "]";

    private static JsonTokenType Next(ref Utf8JsonReader json, string path, long headerAt)
    {
        if (!json.Read())
        {
            ThrowHelper.ThrowModelFormat(path, headerAt + json.BytesConsumed, "the header JSON ends early.");
        }

        return json.TokenType;
    }

    private static void Expect(ref Utf8JsonReader json, JsonTokenType type, string path, long headerAt, string what)
    {
        if (Next(ref json, path, headerAt) != type)
        {
            Fail(ref json, path, headerAt, what);
        }
    }

    [DoesNotReturn]
    private static void Fail(ref Utf8JsonReader json, string path, long headerAt, string what) =>
        ThrowHelper.ThrowModelFormat(path, headerAt + json.TokenStartIndex, $"{what} (found {json.TokenType}).");

    internal static bool LooksLikeSafetensors(ReadOnlySpan<byte> first9, long fileLength) =>
        first9.Length == 9 && first9[8] == (byte)'{'
        && BinaryPrimitives.ReadUInt64LittleEndian(first9) <= (ulong)Math.Max(0, fileLength - 8);
}
