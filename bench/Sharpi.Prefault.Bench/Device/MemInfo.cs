using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>One figure of <c>/proc/meminfo</c>, in bytes.</summary>
internal static class MemInfo
{
    /// <summary>The figure named <paramref name="key"/> (<c>MemFree</c>, <c>MemAvailable</c>, ...) in bytes; 0 where it cannot be read.</summary>
    internal static long Bytes(string key)
    {
        foreach (string line in (BlockDevice.TryRead("/proc/meminfo") ?? string.Empty).Split('\n'))
        {
            if (line.StartsWith(key, StringComparison.Ordinal) && line.Length > key.Length && line[key.Length] == ':' &&
                long.TryParse(line[(key.Length + 1)..].Trim().Split(' ')[0], NumberStyles.None, CultureInfo.InvariantCulture, out long kib))
            {
                return kib * 1024;
            }
        }

        return 0;
    }
}
