using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// Byte counts as people type them: <c>4096</c>, <c>512M</c>, <c>2G</c>, <c>1.5GiB</c> (binary units). Sizes in words come
/// from the library's <c>Sizes.Format</c>, compiled in.
/// </summary>
internal static class ByteSize
{
    internal static bool TryParse(string text, out long bytes)
    {
        bytes = 0;
        ReadOnlySpan<char> s = text.AsSpan().Trim();
        if (s.EndsWith("iB", StringComparison.OrdinalIgnoreCase))
        {
            s = s[..^2];
        }
        else if (s.EndsWith("B", StringComparison.OrdinalIgnoreCase))
        {
            s = s[..^1];
        }

        int shift = 0;
        if (!s.IsEmpty)
        {
            shift = char.ToUpperInvariant(s[^1]) switch
            {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => 0,
            };
            if (shift != 0)
            {
                s = s[..^1];
            }
        }

        if (!double.TryParse(s, NumberStyles.Float, CultureInfo.InvariantCulture, out double value) || value < 0 || double.IsNaN(value))
        {
            return false;
        }

        double result = Math.Round(value * (1L << shift));
        if (result > long.MaxValue)
        {
            return false;
        }

        bytes = (long)result;
        return true;
    }

    /// <summary>Compact form for file names: <c>2G</c>, <c>512M</c>, or the byte count.</summary>
    internal static string Compact(long bytes) =>
        bytes % (1L << 30) == 0 ? $"{bytes >> 30}G"
        : bytes % (1L << 20) == 0 ? $"{bytes >> 20}M"
        : bytes.ToString(CultureInfo.InvariantCulture);
}
