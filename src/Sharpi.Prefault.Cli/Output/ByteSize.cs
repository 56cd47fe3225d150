using System.Globalization;

namespace Sharpi.Prefault.Cli.Output;

/// <summary>Human-readable sizes and rates for the text output (JSON always carries exact byte counts).</summary>
internal static class ByteSize
{
    private static readonly string[] Units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

    public static string Format(long bytes)
    {
        double value = bytes;
        int unit = 0;
        while (Math.Abs(value) >= 1024 && unit < Units.Length - 1)
        {
            value /= 1024;
            unit++;
        }

        return unit == 0
            ? string.Create(CultureInfo.InvariantCulture, $"{bytes} B")
            : string.Create(CultureInfo.InvariantCulture, $"{value:0.00} {Units[unit]}");
    }

    public static string Percent(long part, long whole) =>
        string.Create(CultureInfo.InvariantCulture, $"{(whole <= 0 ? 0 : 100.0 * part / whole),5:0.0}%");
}
