namespace Sharpi.Prefault;

/// <summary>Reads the tensor table of a GGUF file, versions 2 and 3 (spec: ggml's <c>docs/gguf.md</c>).</summary>
internal static class GgufReader
{
    internal const uint Magic = 0x46554747; // "GGUF" read as a little-endian uint32.
    internal const uint DefaultAlignment = 32;

    // Absolute caps on top of the bytes-left checks: far beyond real models, small enough to size lists modestly.
    private const ulong MaxTensorCount = 1 << 22;
    private const ulong MaxKvCount = 1 << 20;
    private const int MaxKeyBytes = 1 << 16;
    private const int MaxNameBytes = 1 << 16;
    private const int MaxDimensions = 4; // GGML_MAX_DIMS
    private const int MaxArrayDepth = 8;

    // Smallest encodings, used to bound a claimed count by the bytes left in the file.
    private const int MinKvBytes = 8 + 4 + 1;          // empty key, type, one-byte value
    private const int MinTensorInfoBytes = 8 + 4 + 4 + 8; // empty name, n_dims = 0, type, offset

    private const uint TypeString = 8;
    private const uint TypeArray = 9;

    internal static List<TensorInfo> Read(Stream stream, string path)
    {
        var reader = new HeaderReader(stream, path);
        if (reader.Length < 4 || reader.ReadUInt32() != Magic)
        {
            reader.Fail(0, "not a GGUF file (the first four bytes are not \"GGUF\").");
        }

        uint version = reader.ReadUInt32();
        if (version == 1)
        {
            reader.Fail(4, "GGUF version 1 (32-bit counts, 2023) is not supported; convert the model with a current llama.cpp.");
        }

        if (version is 0x02000000 or 0x03000000)
        {
            reader.Fail(4, "big-endian GGUF files are not supported.");
        }

        if (version is not (2 or 3))
        {
            reader.Fail(4, $"unknown GGUF version {version}; versions 2 and 3 are supported.");
        }

        long countsAt = reader.Position;
        ulong tensorCount = reader.ReadUInt64();
        ulong kvCount = reader.ReadUInt64();
        CheckCount(reader, countsAt, tensorCount, MaxTensorCount, MinTensorInfoBytes, "tensor count");
        CheckCount(reader, countsAt + 8, kvCount, MaxKvCount, MinKvBytes, "metadata key-value count");

        uint alignment = DefaultAlignment;
        for (ulong i = 0; i < kvCount; i++)
        {
            long keyAt = reader.Position;
            string key = reader.ReadString(reader.ReadUInt64(), MaxKeyBytes, "a metadata key");
            long typeAt = reader.Position;
            uint type = reader.ReadUInt32();
            if (key == "general.alignment")
            {
                alignment = ReadAlignment(reader, typeAt, type);
            }
            else
            {
                SkipValue(reader, typeAt, type, depth: 0, key.Length == 0 ? $"key at {keyAt}" : key);
            }
        }

        CheckCount(reader, reader.Position, tensorCount, MaxTensorCount, MinTensorInfoBytes, "tensor count");
        var tensors = new List<(string Name, string Type, long[] Shape, ulong Offset, long Length, long At)>((int)tensorCount);
        var names = new HashSet<string>(StringComparer.Ordinal); // ordinal over reversibly decoded names: their bytes
        var shapes = new ShapeTable();
        Span<long> dimensionsRead = stackalloc long[MaxDimensions];
        for (ulong i = 0; i < tensorCount; i++)
        {
            long at = reader.Position;
            string name = reader.ReadString(reader.ReadUInt64(), MaxNameBytes, "a tensor name");
            if (!names.Add(name))
            {
                reader.Fail(at, $"tensor name '{name}' appears twice.");
            }

            long dimsAt = reader.Position;
            uint dimensions = reader.ReadUInt32();
            if (dimensions > MaxDimensions)
            {
                reader.Fail(dimsAt, $"tensor '{name}' claims {dimensions} dimensions; ggml allows at most {MaxDimensions}.");
            }

            Span<long> dims = dimensionsRead[..(int)dimensions];
            for (int d = 0; d < dims.Length; d++)
            {
                ulong extent = reader.ReadUInt64();
                if (extent > long.MaxValue)
                {
                    reader.Fail(reader.Position - 8, $"tensor '{name}' has dimension {d} of {extent}, beyond a signed 64-bit count.");
                }

                dims[d] = (long)extent;
            }

            long[] shape = shapes.Get(dims);

            long typeAt = reader.Position;
            uint ggmlType = reader.ReadUInt32();
            if (!GgmlTypes.TryGet(ggmlType, out string typeName, out int blockSize, out int typeSize))
            {
                reader.Fail(typeAt, $"tensor '{name}' has unknown ggml type {ggmlType}.");
            }

            long length = ByteLength(reader, typeAt, name, typeName, shape, blockSize, typeSize);
            ulong offset = reader.ReadUInt64();
            if (offset % alignment != 0)
            {
                reader.Fail(reader.Position - 8, $"tensor '{name}' has data offset {offset}, not a multiple of the alignment {alignment}.");
            }

            tensors.Add((name, typeName, shape, offset, length, at));
        }

        long infosEnd = reader.Position;
        // infosEnd is below the file length, so adding alignment - 1 cannot overflow.
        long dataStart = (long)(((ulong)infosEnd + alignment - 1) / alignment * alignment);
        var result = new List<TensorInfo>(tensors.Count);
        foreach (var t in tensors)
        {
            if (t.Offset > (ulong)reader.Length || dataStart > reader.Length - (long)t.Offset
                || t.Length > reader.Length - dataStart - (long)t.Offset)
            {
                reader.Fail(t.At,
                    $"tensor '{t.Name}' at data offset {t.Offset} (+ data start {dataStart}) with {t.Length} bytes runs past the end of the file ({reader.Length} bytes).");
            }

            result.Add(new TensorInfo(t.Name, t.Type, t.Shape, dataStart + (long)t.Offset, t.Length, path));
        }

        return result;
    }

    private static void CheckCount(HeaderReader reader, long at, ulong count, ulong cap, int minBytes, string what)
    {
        if (count > cap)
        {
            reader.Fail(at, $"the {what} is {count}, more than the {cap} this reader accepts.");
        }

        if (count > (ulong)(reader.Remaining / minBytes))
        {
            reader.Fail(at, $"the {what} is {count}, but the {reader.Remaining} bytes left in the file cannot hold that many entries.");
        }
    }

    private static uint ReadAlignment(HeaderReader reader, long typeAt, uint type)
    {
        const uint TypeUInt32 = 4;
        if (type != TypeUInt32)
        {
            reader.Fail(typeAt, $"general.alignment has value type {type}; the spec requires uint32 (4).");
        }

        uint alignment = reader.ReadUInt32();
        if (alignment == 0 || (alignment & (alignment - 1)) != 0)
        {
            reader.Fail(typeAt + 4, $"general.alignment is {alignment}; it must be a non-zero power of two.");
        }

        return alignment;
    }

    private static void SkipValue(HeaderReader reader, long typeAt, uint type, int depth, string key)
    {
        int size = FixedSize(type);
        if (size > 0)
        {
            reader.Skip((ulong)size);
            return;
        }

        if (type == TypeString)
        {
            reader.Skip(reader.ReadUInt64());
            return;
        }

        if (type != TypeArray)
        {
            reader.Fail(typeAt, $"metadata '{key}' has unknown value type {type}.");
        }

        if (depth >= MaxArrayDepth)
        {
            reader.Fail(typeAt, $"metadata '{key}' nests arrays deeper than {MaxArrayDepth}.");
        }

        long elementTypeAt = reader.Position;
        uint elementType = reader.ReadUInt32();
        long countAt = reader.Position;
        ulong count = reader.ReadUInt64();
        int elementSize = FixedSize(elementType);
        if (elementSize > 0)
        {
            if (count > (ulong)(reader.Remaining / elementSize))
            {
                reader.Fail(countAt, $"metadata '{key}' claims an array of {count} elements of {elementSize} bytes, more than the {reader.Remaining} bytes left.");
            }

            reader.Skip(count * (ulong)elementSize);
            return;
        }

        // Strings take at least their 8-byte length, nested arrays at least type + count (12 bytes).
        int minElementBytes = elementType == TypeString ? 8 : 12;
        if (elementType is not (TypeString or TypeArray))
        {
            reader.Fail(elementTypeAt, $"metadata '{key}' is an array of unknown value type {elementType}.");
        }

        if (count > (ulong)(reader.Remaining / minElementBytes))
        {
            reader.Fail(countAt, $"metadata '{key}' claims an array of {count} elements, more than the {reader.Remaining} bytes left can hold.");
        }

        for (ulong i = 0; i < count; i++)
        {
            SkipValue(reader, elementTypeAt, elementType, depth + 1, key);
        }
    }

    private static int FixedSize(uint type) => type switch
    {
        0 or 1 or 7 => 1,      // uint8, int8, bool
        2 or 3 => 2,           // uint16, int16
        4 or 5 or 6 => 4,      // uint32, int32, float32
        10 or 11 or 12 => 8,   // uint64, int64, float64
        _ => 0,
    };

    /// <summary>The tensor's byte size; as in gguf.cpp, an element count or size past a signed 64-bit count is refused.</summary>
    private static long ByteLength(HeaderReader reader, long at, string name, string typeName, long[] shape, int blockSize, int typeSize)
    {
        long elements = 1;
        foreach (long extent in shape)
        {
            if (!TryMultiply(ref elements, extent))
            {
                reader.Fail(at, $"tensor '{name}' of shape {FormatShape(shape)} has an element count (the product of its shape) that overflows a 64-bit count.");
            }
        }

        long first = shape.Length > 0 ? shape[0] : 1;
        if (first % blockSize != 0)
        {
            reader.Fail(at, $"tensor '{name}' of type {typeName} has a first dimension of {first}, not a multiple of its block size {blockSize}.");
        }

        // A whole number of blocks per row, so elements / blockSize is exact; the product is 128-bit, so it cannot wrap.
        UInt128 bytes = (UInt128)(ulong)(elements / blockSize) * (uint)typeSize;
        if (bytes > long.MaxValue)
        {
            reader.Fail(at,
                $"tensor '{name}' of type {typeName} and shape {FormatShape(shape)} has {elements} elements, whose byte size ({bytes} bytes) overflows a 64-bit count.");
        }

        return (long)bytes;
    }

    private static string FormatShape(long[] shape) => "[" + string.Join(", ", shape) + "]";

    /// <summary>Multiplies two non-negative counts; false on overflow.</summary>
    internal static bool TryMultiply(ref long value, long factor)
    {
        ulong high = Math.BigMul((ulong)value, (ulong)factor, out ulong low);
        if (high != 0 || low > long.MaxValue)
        {
            return false;
        }

        value = (long)low;
        return true;
    }
}
