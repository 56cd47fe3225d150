using System.Buffers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Sharpi.Prefault.Cli.Output;

/// <summary>
/// Writes a string holding a lone surrogate (a name's byte that is not UTF-8, held as U+DC80..U+DCFF) with that
/// surrogate escaped (<c>\udcff</c>): System.Text.Json's writer would replace it with U+FFFD, and two distinct names
/// would print alike.
/// </summary>
internal sealed class LoneSurrogateStringConverter : JsonConverter<string>
{
    public override string? Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) => reader.GetString();

    public override void Write(Utf8JsonWriter writer, string value, JsonSerializerOptions options)
    {
        if (!HasLoneSurrogate(value))
        {
            writer.WriteStringValue(value);
            return;
        }

        var json = new StringBuilder(value.Length + 16).Append('"');
        for (int i = 0; i < value.Length; i++)
        {
            char c = value[i];
            if (char.IsHighSurrogate(c) && i + 1 < value.Length && char.IsLowSurrogate(value[i + 1]))
            {
                json.Append(c).Append(value[++i]);
            }
            else if (c is '"' or '\\')
            {
                json.Append('\\').Append(c);
            }
            else if (c < 0x20 || char.IsSurrogate(c))
            {
                json.Append(CultureInfo.InvariantCulture, $"\\u{(int)c:x4}");
            }
            else
            {
                json.Append(c);
            }
        }

        writer.WriteRawValue(json.Append('"').ToString(), skipInputValidation: true);
    }

    /// <summary>Whether <paramref name="value"/> holds a surrogate not in a pair, by the runtime's own UTF-16 decoder.</summary>
    private static bool HasLoneSurrogate(string value)
    {
        ReadOnlySpan<char> rest = value;
        while (!rest.IsEmpty)
        {
            if (Rune.DecodeFromUtf16(rest, out _, out int used) != OperationStatus.Done)
            {
                return true;
            }

            rest = rest[used..];
        }

        return false;
    }
}
