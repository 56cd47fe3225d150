using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>Byte counts in words ("1.50 GiB"): the one formatter.</summary>
internal static class Sizes
{
    internal const double GiB = 1L << 30;

    internal static string Format(long bytes) => bytes switch
    {
        >= 1L << 50 => string.Create(CultureInfo.InvariantCulture, $"{bytes / (double)(1L << 50):F2} PiB"),
        >= 1L << 40 => string.Create(CultureInfo.InvariantCulture, $"{bytes / (double)(1L << 40):F2} TiB"),
        >= 1L << 30 => string.Create(CultureInfo.InvariantCulture, $"{bytes / GiB:F2} GiB"),
        >= 1L << 20 => string.Create(CultureInfo.InvariantCulture, $"{bytes / (double)(1L << 20):F2} MiB"),
        >= 1L << 10 => string.Create(CultureInfo.InvariantCulture, $"{bytes / 1024.0:F2} KiB"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{bytes} B"),
    };
}
