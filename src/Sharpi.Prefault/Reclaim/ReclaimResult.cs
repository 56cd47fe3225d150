namespace Sharpi.Prefault;

/// <summary>What a reclaim did. Immutable; refusals throw before anything is released, everything else is returned.</summary>
public sealed class ReclaimResult
{
    // Built by the library only: a result reports what a call did.
    internal ReclaimResult()
    {
    }

    /// <summary>False where the platform cannot reclaim (anywhere but Linux); nothing was released and <see cref="Reason"/> says why.</summary>
    public bool IsSupported { get; internal init; }

    /// <summary>What happened, in words for a log.</summary>
    public string Reason { get; internal init; } = string.Empty;

    /// <summary>Bytes of all regions after merging (what was asked for).</summary>
    public long BytesRequested { get; internal init; }

    /// <summary>
    /// Bytes of the whole pages inside the regions that this process no longer maps after the call, whether they were
    /// resident before or not. Less than <see cref="BytesRequested"/> by the partial pages at the regions' edges and by
    /// <see cref="Skipped"/>: with <see cref="ReclaimMechanism.PageOut"/> that includes the pages the kernel kept mapped
    /// (read back from /proc/self/pagemap); with <see cref="ReclaimMechanism.DontNeed"/> every page advised counts.
    /// </summary>
    public long BytesReleased { get; internal init; }

    /// <summary>
    /// The regions (or parts) left resident, and why: locked, smaller than a page, a failed call, or (with
    /// <see cref="ReclaimMechanism.PageOut"/>) pages the kernel kept mapped: mapped elsewhere too, or of a file this
    /// process may not write.
    /// </summary>
    public IReadOnlyList<RegionFailure> Skipped { get; internal init; } = [];

    /// <summary>Number of regions after merging.</summary>
    public int RegionCount { get; internal init; }
}
