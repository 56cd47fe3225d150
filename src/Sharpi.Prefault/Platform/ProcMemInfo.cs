using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>/proc/meminfo's MemAvailable.</summary>
internal static class ProcMemInfo
{
    internal const string Path = "/proc/meminfo";

    /// <summary>In bytes; null where unreadable or absent.</summary>
    internal static long? ReadAvailable() => ParseAvailable(KernelFile.TryReadText(Path));

    /// <summary>In bytes (kB in the text); null when absent.</summary>
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
