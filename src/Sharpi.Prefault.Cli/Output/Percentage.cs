namespace Sharpi.Prefault.Cli.Output;

/// <summary>Shares in percent for the text output (sizes: the library's <c>Sizes.Format</c>, compiled in; JSON carries exact counts).</summary>
internal static class Percentage
{
    /// <summary>
    /// Rounded down to 0.1: a file 99.96% resident reads 99.9%, never the 100.0% it did not reach (as the probe's
    /// verdict does).
    /// </summary>
    public static string Percent(long part, long whole)
    {
        double percent = whole <= 0 ? 0 : Math.Floor(1000.0 * part / whole) / 10;
        return string.Create(CultureInfo.InvariantCulture, $"{percent,5:0.0}%");
    }
}
