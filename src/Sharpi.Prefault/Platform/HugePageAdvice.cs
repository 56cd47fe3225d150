using System.Runtime.Versioning;

namespace Sharpi.Prefault;

/// <summary>
/// <c>madvise(MADV_HUGEPAGE)</c> on the read-only file mappings under the regions, before the sweep. With it, each
/// fault of a file mapping reads a PMD-sized (2 MiB) page-cache folio whatever the device's <c>read_ahead_kb</c>
/// says, where without it a populate at the common 128 KiB setting is capped by that window. Measured on a cold
/// 2 GiB file (2 cores, ext4, kernel 6.18, read_ahead_kb 128): populate alone ~1.5 GiB/s against the disk's
/// ~1.8-2.0; after the advice 1.9-2.0 GiB/s, and the first request mapped 100% of the file with 2 MiB entries.
/// </summary>
/// <remarks>
/// The advice changes the engine's mapping (it stays on the mapping after the run: later faults read 2 MiB folios
/// too, and khugepaged may collapse it), so it is given to whole mappings from /proc/self/maps, never to parts of
/// one: a part would split the mapping into new VMAs, and 10,000 tensors would approach <c>vm.max_map_count</c>.
/// Only read-only, file-backed mappings that the regions cover at least half of get it (a sparser selection is read
/// exactly, see <see cref="FileStaging"/>), and only where THP is enabled (<c>always</c> or <c>madvise</c>).
/// <see cref="PrefaultOptions.IsHugePageAdviceEnabled"/> turns it off.
/// </remarks>
internal static unsafe class HugePageAdvice
{
    internal const string EnabledPath = "/sys/kernel/mm/transparent_hugepage/enabled";

    /// <summary>
    /// MADV_HUGEPAGE on the whole mapping <paramref name="map"/> (never a part: a part would split it); false when the
    /// kernel refuses, which changes nothing else. <see cref="FileStaging"/> decides which mappings get it.
    /// </summary>
    [SupportedOSPlatform("linux")]
    internal static bool Advise(in ProcMapEntry map) =>
        Interop.Libc.Madvise((void*)map.Start, (nuint)(map.End - map.Start), Interop.LinuxConstants.MADV_HUGEPAGE) == 0;

    /// <summary>True for THP mode <c>always</c> or <c>madvise</c> (the bracketed word of the sysfs file).</summary>
    internal static bool IsThpEnabled(string? mode) =>
        mode is not null && (mode.Contains("[always]", StringComparison.Ordinal) || mode.Contains("[madvise]", StringComparison.Ordinal));
}
