using System.Globalization;

namespace Sharpi.Prefault;

/// <summary><c>/proc/meminfo</c>, read for <see cref="MemoryFigures.AvailableBytes"/>.</summary>
internal static class ProcMemInfo
{
    internal const string Path = "/proc/meminfo";

    /// <summary>This machine's <c>MemAvailable</c> in bytes; null where /proc/meminfo cannot be read or lacks it.</summary>
    internal static long? ReadAvailable() => ParseAvailable(KernelFile.TryReadText(Path));

    /// <summary>Parses <c>MemAvailable</c> (kB) from the text of /proc/meminfo; null when absent.</summary>
    internal static long? ParseAvailable(string? meminfo)
    {
        if (meminfo is null)
        {
            return null;
        }

        foreach (string line in meminfo.Split('\n'))
        {
            if (!line.StartsWith("MemAvailable:", StringComparison.Ordinal))
            {
                continue;
            }

            string[] parts = line["MemAvailable:".Length..].Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (parts.Length >= 1 && long.TryParse(parts[0], NumberStyles.None, CultureInfo.InvariantCulture, out long kb))
            {
                return kb * 1024;
            }
        }

        return null;
    }
}
