using System.Runtime.Versioning;

namespace Sharpi.Prefault;

/// <summary>
/// <c>madvise(MADV_HUGEPAGE)</c> on whole read-only file mappings: each fault then reads a 2 MiB folio whatever
/// <c>read_ahead_kb</c> says. It stays on the engine's mapping after the run.
/// </summary>
internal static unsafe class HugePageAdvice
{
    internal const string EnabledPath = "/sys/kernel/mm/transparent_hugepage/enabled";

    /// <summary>On the whole mapping, never a part, which would split it; false when the kernel refuses.</summary>
    [SupportedOSPlatform("linux")]
    internal static bool Advise(in ProcMapEntry map) =>
        Interop.Libc.Madvise((void*)map.Start, (nuint)(map.End - map.Start), Interop.LinuxConstants.MADV_HUGEPAGE) == 0;

    /// <summary>THP mode <c>always</c> or <c>madvise</c>.</summary>
    internal static bool IsThpEnabled(string? mode) =>
        mode is not null && (mode.Contains("[always]", StringComparison.Ordinal) || mode.Contains("[madvise]", StringComparison.Ordinal));
}
