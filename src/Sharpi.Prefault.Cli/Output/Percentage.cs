using System.Globalization;

namespace Sharpi.Prefault.Cli.Output;

/// <summary>Shares in percent for the text output (sizes: the library's <c>Sizes.Format</c>, compiled in; JSON carries exact counts).</summary>
internal static class Percentage
{
    public static string Percent(long part, long whole) =>
        string.Create(CultureInfo.InvariantCulture, $"{(whole <= 0 ? 0 : 100.0 * part / whole),5:0.0}%");
}
