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
    /// Bytes of whole pages inside the regions that this process no longer maps after the call; less than
    /// <see cref="BytesRequested"/> by the partial pages at the edges and by <see cref="Skipped"/>.
    /// </summary>
    public long BytesReleased { get; internal init; }

    /// <summary>The regions (or parts) left resident, and why.</summary>
    public IReadOnlyList<RegionFailure> Skipped { get; internal init; } = [];

    /// <summary>Number of regions after merging.</summary>
    public int RegionCount { get; internal init; }
}
