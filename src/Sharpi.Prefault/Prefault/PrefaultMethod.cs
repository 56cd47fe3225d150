namespace Sharpi.Prefault;

/// <summary>How pages were brought in.</summary>
public enum PrefaultMethod
{
    /// <summary>Nothing ran (skipped by the gate, or no regions).</summary>
    None = 0,

    /// <summary>
    /// Linux <c>madvise(MADV_POPULATE_READ)</c> over page-aligned chunks taken in the order given, after
    /// <c>MADV_HUGEPAGE</c> on the file mappings.
    /// </summary>
    Populate = 1,

    /// <summary>
    /// A parallel per-page stride touch (one byte per page and each region's last byte), after the OS read-ahead hint
    /// where the platform has a useful one (macOS <c>MADV_WILLNEED</c>, Windows <c>PrefetchVirtualMemory</c>).
    /// </summary>
    Touch = 2,

    /// <summary>Only the OS read-ahead hint was issued; residency is not guaranteed.</summary>
    Hint = 3,
}
