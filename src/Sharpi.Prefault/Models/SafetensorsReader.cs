using System.Buffers.Binary;
using System.Diagnostics.CodeAnalysis;
using System.Text.Json;

namespace Sharpi.Prefault;

/// <summary>Reads the header of a safetensors file (spec: the huggingface/safetensors README, "Format").</summary>
internal static class SafetensorsReader
{
    /// <summary>The reference implementation refuses headers over 100 MB; so do we, before allocating.</summary>
    internal const long MaxHeaderBytes = 100L << 20;

    /// <summary>The window the header streams through; it grows only for an entry longer than itself.</summary>
    private const int WindowBytes = 1 << 20;

    private const string MetadataKey = "__metadata__";

    private const int MaxDimensions = 64;

    private static readonly JsonReaderOptions Options = new() { CommentHandling = JsonCommentHandling.Disallow, MaxDepth = 64 };

    // The dtypes BitsPerElement knows, so each tensor shares one string instead of holding its own copy.
    private static readonly string[] KnownDTypes =
        ["BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0", "I16", "U16", "F16", "BF16", "I32", "U32", "F32", "I64", "U64", "F64", "C64",
         "F4", "F6_E2M3", "F6_E3M2"];

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

        long headerEnd = 8 + (long)headerLength;
        var parse = new HeaderParse(path, dataStart: headerEnd, reader.Length);
        byte[] window = new byte[Math.Min((int)headerLength, WindowBytes)];
        long windowAt = 8; // the file offset of window[0]
        int filled = 0;
        while (true)
        {
            int n = (int)Math.Min(window.Length - filled, headerEnd - windowAt - filled);
            reader.ReadInto(window.AsSpan(filled, n));
            filled += n;
            var json = new Utf8JsonReader(window.AsSpan(0, filled), isFinalBlock: windowAt + filled == headerEnd, parse.State);
            int consumed = parse.Advance(ref json, windowAt);
            if (parse.IsDone)
            {
                return parse.Tensors;
            }

            // Keep the unfinished entry, and grow the window where that entry fills it.
            window.AsSpan(consumed, filled - consumed).CopyTo(window);
            filled -= consumed;
            windowAt += consumed;
            if (filled == window.Length)
            {
                Array.Resize(ref window, (int)Math.Min(window.Length * 2L, headerEnd - windowAt));
            }
        }
    }

    /// <summary>The parse of one header, advanced window by window; it keeps what the next window resumes from.</summary>
    private sealed class HeaderParse(string path, long dataStart, long fileLength)
    {
        private readonly HashSet<string> _names = new(StringComparer.Ordinal);
        private readonly ShapeTable _shapes = new();
        private bool _inObject;
        private long _headerAt;

        internal List<TensorInfo> Tensors { get; } = [];

        /// <summary>The reader state after the last whole entry: where the next window resumes.</summary>
        internal JsonReaderState State { get; private set; } = new(Options);

        internal bool IsDone { get; private set; }

        /// <summary>Parses the whole entries in <paramref name="json"/>; returns the bytes they took.</summary>
        internal int Advance(ref Utf8JsonReader json, long windowAt)
        {
            _headerAt = windowAt; // offsets in errors are file offsets: the window's plus the reader's index
            int committed = 0;
            try
            {
                if (!_inObject)
                {
                    Expect(ref json, JsonTokenType.StartObject, "the header must be a JSON object");
                    _inObject = true;
                    Commit(ref json, ref committed);
                }

                while (true)
                {
                    JsonTokenType token = Next(ref json);
                    if (token == JsonTokenType.EndObject)
                    {
                        break;
                    }

                    if (token != JsonTokenType.PropertyName)
                    {
                        Fail(ref json, "expected a tensor name");
                    }

                    ReadEntry(ref json);
                    Commit(ref json, ref committed);
                }

                // Only whitespace may follow; the reader refuses anything else once the block is final.
                if (json.Read())
                {
                    Fail(ref json, "unexpected content after the header object");
                }

                if (!json.IsFinalBlock)
                {
                    return committed; // the rest is in the next window
                }

                IsDone = true;
            }
            catch (NeedMoreData)
            {
            }
            catch (JsonException e)
            {
                ThrowHelper.ThrowModelFormat(path, _headerAt + json.BytesConsumed, $"the header is not valid JSON: {e.Message}", e);
            }
            catch (InvalidOperationException e)
            {
                // Thrown for tokens of the wrong kind, invalid UTF-8, or a lone surrogate escape.
                ThrowHelper.ThrowModelFormat(path, _headerAt + json.TokenStartIndex, $"the header holds an invalid value: {e.Message}", e);
            }

            return committed;
        }

        private void Commit(ref Utf8JsonReader json, ref int committed)
        {
            committed = (int)json.BytesConsumed;
            State = json.CurrentState;
        }

        /// <summary>One whole entry, the name's token read; it counts only once whole (a window may end inside it).</summary>
        private void ReadEntry(ref Utf8JsonReader json)
        {
            long at = _headerAt + json.TokenStartIndex;
            string name = ReadName(ref json);
            if (name == MetadataKey)
            {
                Next(ref json);
                if (!json.TrySkip())
                {
                    throw new NeedMoreData();
                }
            }
            else
            {
                Tensors.Add(ReadTensor(ref json, name, at));
            }

            if (!_names.Add(name))
            {
                if (name != MetadataKey)
                {
                    Tensors.RemoveAt(Tensors.Count - 1);
                }

                ThrowHelper.ThrowModelFormat(path, at, $"tensor name '{name}' appears twice.");
            }
        }

        private string ReadName(ref Utf8JsonReader json)
        {
            try
            {
                return json.GetString()!;
            }
            catch (InvalidOperationException e)
            {
                ThrowHelper.ThrowModelFormat(path, _headerAt + json.TokenStartIndex,
                    $"a tensor name is not valid Unicode (invalid UTF-8 or a lone surrogate escape), which safetensors does not allow: {e.Message}", e);
                return null;
            }
        }

        private TensorInfo ReadTensor(ref Utf8JsonReader json, string name, long at)
        {
            Expect(ref json, JsonTokenType.StartObject, $"tensor '{name}' must be a JSON object");
            string? dtype = null;
            long[]? shape = null;
            long begin = -1, end = -1;
            Span<long> counts = stackalloc long[MaxDimensions];
            while (Next(ref json) == JsonTokenType.PropertyName)
            {
                if (json.ValueTextEquals("dtype"u8))
                {
                    Expect(ref json, JsonTokenType.String, $"tensor '{name}': dtype must be a string");
                    dtype = ReadDType(ref json);
                }
                else if (json.ValueTextEquals("shape"u8))
                {
                    int dimensions = ReadCounts(ref json, name, "shape", counts);
                    shape = _shapes.Get(counts[..dimensions]);
                }
                else if (json.ValueTextEquals("data_offsets"u8))
                {
                    int n = ReadCounts(ref json, name, "data_offsets", counts[..2]);
                    if (n != 2 || counts[0] > counts[1])
                    {
                        Fail(ref json, $"tensor '{name}': data_offsets must be [begin, end] with begin <= end");
                    }

                    (begin, end) = (counts[0], counts[1]);
                }
                else
                {
                    Next(ref json);
                    if (!json.TrySkip())
                    {
                        throw new NeedMoreData();
                    }
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

            long expected = ByteLength(shape, bits, out string? fault);
            if (fault is not null)
            {
                ThrowHelper.ThrowModelFormat(path, at, $"tensor '{name}' of {dtype} {FormatShape(shape)} {fault}.");
            }

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

        private static string ReadDType(ref Utf8JsonReader json)
        {
            foreach (string known in KnownDTypes)
            {
                if (json.ValueTextEquals(known))
                {
                    return known;
                }
            }

            return json.GetString()!;
        }

        private int ReadCounts(ref Utf8JsonReader json, string name, string what, scoped Span<long> values)
        {
            Expect(ref json, JsonTokenType.StartArray, $"tensor '{name}': {what} must be an array of integers");
            int count = 0;
            while (Next(ref json) != JsonTokenType.EndArray)
            {
                long value = -1;
                if (json.TokenType != JsonTokenType.Number || !json.TryGetInt64(out value) || value < 0)
                {
                    Fail(ref json, $"tensor '{name}': {what} must hold non-negative integers");
                }

                if (count == values.Length)
                {
                    Fail(ref json, $"tensor '{name}': {what} has more than {values.Length} entries");
                }

                values[count++] = value;
            }

            return count;
        }

        /// <summary>The next token; throws <see cref="NeedMoreData"/> where the window ends before the header does.</summary>
        private JsonTokenType Next(ref Utf8JsonReader json)
        {
            if (!json.Read())
            {
                if (!json.IsFinalBlock)
                {
                    throw new NeedMoreData();
                }

                ThrowHelper.ThrowModelFormat(path, _headerAt + json.BytesConsumed, "the header JSON ends early.");
            }

            return json.TokenType;
        }

        private void Expect(ref Utf8JsonReader json, JsonTokenType type, string what)
        {
            if (Next(ref json) != type)
            {
                Fail(ref json, what);
            }
        }

        [DoesNotReturn]
        private void Fail(ref Utf8JsonReader json, string what) =>
            ThrowHelper.ThrowModelFormat(path, _headerAt + json.TokenStartIndex, $"{what} (found {json.TokenType}).");
    }

    /// <summary>The window ends inside an entry: the parse resumes at that entry with more bytes.</summary>
    private sealed class NeedMoreData : Exception
    {
    }

    /// <summary>
    /// The byte size of the tensor; -1 with <paramref name="fault"/> where a count overflows 64 bits or sub-byte elements
    /// end inside a byte.
    /// </summary>
    internal static long ByteLength(long[] shape, int bits, out string? fault)
    {
        long elements = 1;
        foreach (long extent in shape)
        {
            if (!GgufReader.TryMultiply(ref elements, extent))
            {
                fault = "has an element count (the product of its shape) that overflows a 64-bit count";
                return -1;
            }
        }

        UInt128 totalBits = (UInt128)(ulong)elements * (uint)bits;
        if (totalBits / 8 > long.MaxValue)
        {
            fault = $"has {elements} elements, whose byte size ({totalBits / 8} bytes) overflows a 64-bit count";
            return -1;
        }

        if (totalBits % 8 != 0)
        {
            fault = $"has {elements} elements of {bits} bits, which do not fill a whole number of bytes";
            return -1;
        }

        fault = null;
        return (long)(totalBits / 8);
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

    internal static bool LooksLikeSafetensors(ReadOnlySpan<byte> first9, long fileLength) =>
        first9.Length == 9 && first9[8] == (byte)'{'
        && BinaryPrimitives.ReadUInt64LittleEndian(first9) <= (ulong)Math.Max(0, fileLength - 8);
}
