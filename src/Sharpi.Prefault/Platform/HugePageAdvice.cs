namespace Sharpi.Prefault;

/// <summary>Each fault of an advised mapping reads a 2 MiB folio; the advice outlives the run.</summary>
internal static unsafe class HugePageAdvice
{
    internal const string EnabledPath = "/sys/kernel/mm/transparent_hugepage/enabled";

    /// <summary>Never a part, which would split the mapping; false when refused.</summary>
    [SupportedOSPlatform("linux")]
    internal static bool Advise(in ProcMapEntry map) =>
        Interop.Libc.Madvise((void*)map.Start, (nuint)(map.End - map.Start), Interop.LinuxConstants.MADV_HUGEPAGE) == 0;

    internal static bool IsThpEnabled(string? mode) =>
        mode is not null && (mode.Contains("[always]", StringComparison.Ordinal) || mode.Contains("[madvise]", StringComparison.Ordinal));
}
