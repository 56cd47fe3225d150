namespace Sharpi.Prefault;

/// <summary>One range's residency count (<see cref="FileCacheProbe.CountResident(MergedRegion[], ProcMapEntry[], out long, RangeResidency[])"/>, one entry per range): its resident bytes, or the error of the query that could not count it.</summary>
/// <param name="ResidentBytes">The range's resident bytes; 0 when it was not counted.</param>
/// <param name="IsCounted">False when the range is not mapped or the query failed.</param>
/// <param name="Error">The query that failed when not counted (mincore's errno, or QueryWorkingSetEx's Win32 error on Windows); <see cref="PlatformError.None"/> otherwise.</param>
internal readonly record struct RangeResidency(long ResidentBytes, bool IsCounted, PlatformError Error)
{
    /// <summary>Bytes whose residency the kernel would not tell (a file this process may not write), not in <see cref="ResidentBytes"/>.</summary>
    public long UnknownBytes { get; init; }
}
