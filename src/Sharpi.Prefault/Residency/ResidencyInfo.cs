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

    /// <summary>Of those, bytes on resident pages (on Windows, in this process's working set).</summary>
    public long ResidentBytes { get; init; } = residentBytes;

    /// <summary>False where the platform has no residency query for the figure; the counts are then 0.</summary>
    public bool IsSupported { get; init; } = isSupported;

    /// <summary>
    /// Set when a range could not be measured (for example it is not mapped), or when the kernel would not tell the
    /// residency of some bytes (<see cref="UnknownBytes"/>); the counts cover the rest.
    /// </summary>
    public string? Error { get; init; } = error;

    /// <summary>
    /// Of <see cref="Bytes"/>, those whose residency the kernel would not tell; not in <see cref="ResidentBytes"/>.
    /// </summary>
    /// <remarks>
    /// Linux hides a file's page cache from a process that could not open it for writing; run as its owner or root to measure it.
    /// </remarks>
    public long UnknownBytes { get; init; }

    /// <summary>Resident share, 0 to 1 (0 for no bytes).</summary>
    public double Fraction => Bytes <= 0 ? 0 : (double)ResidentBytes / Bytes;

    /// <summary>Resident share in percent.</summary>
    public double Percent => Fraction * 100;
}
