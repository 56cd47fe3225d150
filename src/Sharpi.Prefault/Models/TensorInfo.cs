using System.Buffers;
using System.Text;

namespace Sharpi.Prefault;

/// <summary>One tensor of a model file: where its bytes lie and what they hold.</summary>
public sealed class TensorInfo
{
    private const char FirstEscape = '\uDC80'; // U+DC00 + 0x80: the first byte an invalid UTF-8 sequence can hold
    private const char LastEscape = '\uDCFF';

    // Built by the format readers only: a tensor is what a file's header says.
    internal TensorInfo(string name, string dType, IReadOnlyList<long> shape, long offset, long length, string filePath)
    {
        Name = name;
        DType = dType;
        Shape = shape;
        Offset = offset;
        Length = length;
        FilePath = filePath;
    }

    /// <summary>The tensor's name as stored, decoded by <see cref="DecodeName"/>.</summary>
    public string Name { get; }

    /// <summary>The element type as the format spells it (<c>Q4_K</c>, <c>BF16</c>).</summary>
    public string DType { get; }

    /// <summary>The dimensions as stored; shared, never cast and write it.</summary>
    public IReadOnlyList<long> Shape { get; }

    /// <summary>Absolute byte offset of the tensor's data in <see cref="FilePath"/>.</summary>
    public long Offset { get; }

    /// <summary>Length of the tensor's data in bytes.</summary>
    public long Length { get; }

    /// <summary>The file holding the tensor's data.</summary>
    public string FilePath { get; }

    /// <summary>One past the tensor's last byte in <see cref="FilePath"/>.</summary>
    public long End => Offset + Length;

    /// <summary>Decodes name bytes as UTF-8, invalid bytes as U+DC00+0xNN (<c>surrogateescape</c>).</summary>
    public static string DecodeName(ReadOnlySpan<byte> utf8)
    {
        if (System.Text.Unicode.Utf8.IsValid(utf8))
        {
            return Encoding.UTF8.GetString(utf8);
        }

        var builder = new StringBuilder(utf8.Length);
        Span<char> pair = stackalloc char[2];
        while (!utf8.IsEmpty)
        {
            // Invalid data consumes its maximal invalid subsequence: bytes 0x80..0xFF only, as ASCII is always valid.
            if (Rune.DecodeFromUtf8(utf8, out Rune rune, out int consumed) == OperationStatus.Done)
            {
                builder.Append(pair[..rune.EncodeToUtf16(pair)]);
            }
            else
            {
                foreach (byte b in utf8[..consumed])
                {
                    builder.Append((char)(0xDC00 + b));
                }
            }

            utf8 = utf8[consumed..];
        }

        return builder.ToString();
    }

    /// <summary>The bytes a tensor name decoded by <see cref="DecodeName"/> came from.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> holds a lone surrogate outside U+DC80..U+DCFF.</exception>
    public static byte[] EncodeName(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        if (!HasEscapes(name))
        {
            // No escape: any other lone surrogate is refused by the strict encoder rather than turned into U+FFFD.
            try
            {
                return StrictUtf8.GetBytes(name);
            }
            catch (EncoderFallbackException)
            {
                ThrowHelper.ThrowNotADecodedName(nameof(name));
            }
        }

        var bytes = new List<byte>(name.Length + 8);
        Span<byte> buffer = stackalloc byte[4];
        ReadOnlySpan<char> rest = name;
        while (!rest.IsEmpty)
        {
            if (Rune.DecodeFromUtf16(rest, out Rune rune, out int consumed) == OperationStatus.Done)
            {
                int n = rune.EncodeToUtf8(buffer);
                for (int i = 0; i < n; i++)
                {
                    bytes.Add(buffer[i]);
                }
            }
            else if (rest[0] is >= FirstEscape and <= LastEscape)
            {
                consumed = 1;
                bytes.Add((byte)(rest[0] - 0xDC00));
            }
            else
            {
                ThrowHelper.ThrowNotADecodedName(nameof(name));
            }

            rest = rest[consumed..];
        }

        return [.. bytes];
    }

    /// <summary>True when <paramref name="name"/> holds an escaped byte (its bytes are not valid UTF-8).</summary>
    internal static bool HasEscapes(string name) => name.AsSpan().IndexOfAnyInRange(FirstEscape, LastEscape) >= 0;

    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);
}
