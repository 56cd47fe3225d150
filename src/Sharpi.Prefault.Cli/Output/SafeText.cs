using System.Text;

namespace Sharpi.Prefault.Cli.Output;

/// <summary>
/// Text from a model file or the file system (tensor names, paths, messages quoting them) made safe for a terminal and
/// unambiguous: what could act on a terminal, reorder or break a line, or stand for bytes that are not text is written
/// as an escape, and the backslash itself as <c>\\</c>, so no two distinct names print alike.
/// </summary>
internal static class SafeText
{
    public static string Escape(string? text) => Escape(text, escapeBackslash: true);

    /// <summary>
    /// A log message of the library's, escaped as <see cref="Escape(string?)"/> but with the backslash left as it is:
    /// the library already writes the values it quotes visibly (<c>'off\u200B'</c>), which a doubled backslash would
    /// misquote.
    /// </summary>
    public static string EscapeMessage(string? text) => Escape(text, escapeBackslash: false);

    private static string Escape(string? text, bool escapeBackslash)
    {
        if (string.IsNullOrEmpty(text))
        {
            return text ?? string.Empty;
        }

        int first = IndexOfUnsafe(text, escapeBackslash);
        if (first < 0)
        {
            return text;
        }

        var builder = new StringBuilder(text.Length + 8);
        builder.Append(text, 0, first);
        for (int i = first; i < text.Length; i++)
        {
            char c = text[i];
            if (char.IsHighSurrogate(c) && i + 1 < text.Length && char.IsLowSurrogate(text[i + 1]))
            {
                builder.Append(c).Append(text[i + 1]); // a valid pair: one character, printed as it is
                i++;
            }
            else if (c == '\\' && escapeBackslash)
            {
                builder.Append("\\\\");
            }
            else if (c is >= '\uDC80' and <= '\uDCFF')
            {
                builder.Append(CultureInfo.InvariantCulture, $"\\x{c - 0xDC00:x2}"); // the byte it stands for
            }
            else if (!IsUnsafe(c))
            {
                builder.Append(c);
            }
            else if (c < 0x80)
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

    private static int IndexOfUnsafe(string text, bool escapeBackslash)
    {
        for (int i = 0; i < text.Length; i++)
        {
            if (IsUnsafe(text[i]) || (escapeBackslash && text[i] == '\\'))
            {
                return i;
            }
        }

        return -1;
    }

    /// <summary>A character printed as an escape (docs/why/cli.md, SafeText); a surrogate is unsafe until it is seen to be half of a pair.</summary>
    private static bool IsUnsafe(char c) =>
        c < 0x20
        || (c >= 0x7F && c <= 0x9F)
        || c is '\u061C' or '\u200E' or '\u200F' or '\u2028' or '\u2029' or '\uFFFD'
        || (c >= '\u202A' && c <= '\u202E')
        || (c >= '\u2066' && c <= '\u2069')
        || char.IsSurrogate(c);
}
