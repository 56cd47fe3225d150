using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// How much of this process's file mappings the kernel maps with 2 MiB page-table entries (<c>FilePmdMapped</c> in
/// <c>/proc/self/smaps_rollup</c>). A sequential fault stream grows the page cache's folios to 2 MiB and maps them
/// whole; interleaved streams leave small folios and 4 KiB entries, which cost more faults and TLB misses.
/// </summary>
internal static class HugeMappings
{
    /// <summary>Bytes of file mappings mapped by PMDs, or null where the kernel does not say.</summary>
    internal static long? FilePmdMappedBytes()
    {
        const string Path = "/proc/self/smaps_rollup";
        if (!OperatingSystem.IsLinux() || !File.Exists(Path))
        {
            return null;
        }

        foreach (string line in File.ReadLines(Path))
        {
            if (line.StartsWith("FilePmdMapped:", StringComparison.Ordinal))
            {
                string kib = line["FilePmdMapped:".Length..].Trim().Split(' ')[0];
                return long.TryParse(kib, NumberStyles.Integer, CultureInfo.InvariantCulture, out long value) ? value * 1024 : null;
            }
        }

        return null;
    }
}
