namespace Sharpi.Prefault;

/// <summary>
/// One range's residency: resident bytes where <c>IsCounted</c>, else the failed query's error (range not mapped, or
/// the query refused).
/// </summary>
internal readonly record struct RangeResidency(long ResidentBytes, bool IsCounted, PlatformError Error)
{
    /// <summary>Bytes whose residency the kernel would not tell, not in <see cref="ResidentBytes"/>.</summary>
    public long UnknownBytes { get; init; }
}
