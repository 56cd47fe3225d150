namespace Sharpi.Prefault;

/// <summary>A range's resident bytes where <c>IsCounted</c>, else 0 and the failed query's error.</summary>
internal readonly record struct RangeResidency(long ResidentBytes, bool IsCounted, PlatformError Error)
{
    /// <summary>Bytes the kernel would not tell, not in <see cref="ResidentBytes"/>.</summary>
    public long UnknownBytes { get; init; }
}
