using System.Globalization;
using System.Text;

namespace Sharpi.Prefault.Cli.Output;

/// <summary>
/// Text from a model file or the file system (tensor names, paths, messages quoting them) made safe for a terminal:
/// control characters (C0, DEL, C1, so ESC sequences too) are written as <c>\xNN</c> / <c>\uNNNN</c> escapes.
/// A model file must not be able to move the cursor, retitle the window or hide text.
/// </summary>
internal static class SafeText
{
    public static string Escape(string? text)
    {
        if (string.IsNullOrEmpty(text))
        {
            return text ?? string.Empty;
        }

        int first = IndexOfUnsafe(text);
        if (first < 0)
        {
            return text;
        }

        var builder = new StringBuilder(text.Length + 8);
        builder.Append(text, 0, first);
        for (int i = first; i < text.Length; i++)
        {
            char c = text[i];
            if (!IsUnsafe(c))
            {
                builder.Append(c);
            }
            else if (c <= 0xFF)
            {
                builder.Append(CultureInfo.InvariantCulture, $"\\x{(int)c:x2}");
            }
            else
            {
                builder.Append(CultureInfo.InvariantCulture, $"\\u{(int)c:x4}");
            }
        }

        return builder.ToString();
    }

    private static int IndexOfUnsafe(string text)
    {
        for (int i = 0; i < text.Length; i++)
        {
            if (IsUnsafe(text[i]))
            {
                return i;
            }
        }

        return -1;
    }

    // C0 controls, DEL, C1 controls (0x9B is a one-byte CSI), the bidi overrides that reorder what follows, and U+FFFD:
    // what .NET makes of a file name's bytes that are not UTF-8, shown as \ufffd so the name reads as changed.
    private static bool IsUnsafe(char c) =>
        c < 0x20 || (c >= 0x7F && c <= 0x9F) || (c >= '\u202A' && c <= '\u202E') || (c >= '\u2066' && c <= '\u2069') || c == '\uFFFD';
}
