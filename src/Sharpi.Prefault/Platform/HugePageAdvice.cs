using System.Runtime.Versioning;

namespace Sharpi.Prefault;

/// <summary>
/// <c>madvise(MADV_HUGEPAGE)</c> on the read-only file mappings a run covers whole: each fault then reads a 2 MiB
/// page-cache folio whatever <c>read_ahead_kb</c> says (<see cref="HugePagePopulate"/>). The advice stays on the
/// engine's mapping after the run, and a whole mapping is advised so as not to split it (only a trial's units split
/// one, and the whole advice merges it back); <see cref="PrefaultOptions.IsHugePageAdviceEnabled"/> turns it off.
/// </summary>
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
