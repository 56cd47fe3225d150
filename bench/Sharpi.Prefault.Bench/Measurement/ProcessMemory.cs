using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>This process's resident memory from <c>/proc/self/status</c> (Linux; 0 elsewhere).</summary>
internal static class ProcessMemory
{
    /// <summary>Resident pages of file mappings (RssFile), in bytes: what a mapping's page-table entries hold, not the page cache.</summary>
    internal static long RssFileBytes => StatusBytes("RssFile:");

    private static long StatusBytes(string field)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 0;
        }

        foreach (string line in File.ReadLines("/proc/self/status"))
        {
            if (line.StartsWith(field, StringComparison.Ordinal))
            {
                string kib = line[field.Length..].Trim().Split(' ')[0];
                return long.Parse(kib, NumberStyles.None, CultureInfo.InvariantCulture) * 1024;
            }
        }

        return 0;
    }
}
