using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>This process's memory from <c>/proc/self</c> (Linux; null or 0 elsewhere, and where the kernel does not say).</summary>
internal static class ProcessMemory
{
    private const string SmapsRollup = "/proc/self/smaps_rollup";

    /// <summary>Resident pages of file mappings (RssFile), in bytes: what a mapping's page-table entries hold, not the page cache.</summary>
    internal static long RssFileBytes => KiBField("/proc/self/status", "RssFile:") ?? 0;

    /// <summary>
    /// Bytes of file mappings the kernel maps with 2 MiB page-table entries (<c>FilePmdMapped</c>). A sequential fault
    /// stream grows the page cache's folios to 2 MiB and maps them whole; interleaved streams leave small folios and
    /// 4 KiB entries, which cost more faults and TLB misses.
    /// </summary>
    internal static long? FilePmdMappedBytes => KiBField(SmapsRollup, "FilePmdMapped:");

    /// <summary>Bytes of anonymous memory backed by 2 MiB pages (<c>AnonHugePages</c>).</summary>
    internal static long AnonHugeBytes => KiBField(SmapsRollup, "AnonHugePages:") ?? 0;

    /// <summary>A <c>Field: N kB</c> line of a /proc file, in bytes.</summary>
    private static long? KiBField(string path, string field)
    {
        if (!OperatingSystem.IsLinux() || !File.Exists(path))
        {
            return null;
        }

        foreach (string line in File.ReadLines(path))
        {
            if (line.StartsWith(field, StringComparison.Ordinal))
            {
                string kib = line[field.Length..].Trim().Split(' ')[0];
                return long.TryParse(kib, NumberStyles.Integer, CultureInfo.InvariantCulture, out long value) ? value * 1024 : null;
            }
        }

        return null;
    }
}
