namespace Sharpi.Prefault;

/// <summary>How much of a range is in memory.</summary>
/// <param name="bytes">Bytes measured.</param>
/// <param name="residentBytes">Of those, bytes on resident pages.</param>
/// <param name="isSupported">False where the platform has no residency query for the figure.</param>
/// <param name="error">Why a range could not be measured, or null.</param>
public readonly struct ResidencyInfo(long bytes, long residentBytes, bool isSupported, string? error = null)
{
    /// <summary>Bytes measured (after merging overlapping regions).</summary>
    public long Bytes { get; init; } = bytes;

    /// <summary>
    /// Of those, bytes on pages that are resident: page-cache pages, mapped or not, for file mappings on Linux and macOS;
    /// on Windows pages in this process's working set (mapped into this process), not the file cache.
    /// </summary>
    public long ResidentBytes { get; init; } = residentBytes;

    /// <summary>
    /// False where the platform has no residency query for the figure, the counts then 0: a platform other than Linux,
    /// macOS, FreeBSD and Windows, or a whole file's cache (<see cref="Residency.OfFile(string)"/>) on Windows.
    /// </summary>
    public bool IsSupported { get; init; } = isSupported;

    /// <summary>
    /// Set when a range could not be measured (for example it is not mapped), or when the kernel would not tell the
    /// residency of some bytes (<see cref="UnknownBytes"/>); the counts cover the rest.
    /// </summary>
    public string? Error { get; init; } = error;

    /// <summary>
    /// Of <see cref="Bytes"/>, those whose residency the kernel would not tell; not counted in <see cref="ResidentBytes"/>,
    /// so <see cref="Fraction"/> never counts them. On Linux the page cache of a file is hidden from a process that
    /// could not open it for writing (not its owner, not root, not a writer: a service user reading root-owned 0644
    /// weights, or a file on a read-only mount): cachestat refuses, and mincore reports every page resident, which this
    /// library does not believe. Of such a file only the pages this process maps (its page tables say so) count as
    /// resident, and the rest is unknown: a fresh mapping of a file is all unknown. Run as the file's owner or root, or
    /// give the user write access, to measure it.
    /// </summary>
    public long UnknownBytes { get; init; }

    /// <summary>Resident share, 0 to 1 (0 for no bytes).</summary>
    public double Fraction => Bytes <= 0 ? 0 : (double)ResidentBytes / Bytes;

    /// <summary>Resident share in percent.</summary>
    public double Percent => Fraction * 100;
}
