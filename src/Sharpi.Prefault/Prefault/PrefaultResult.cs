namespace Sharpi.Prefault;

/// <summary>What a prefault did. Immutable; never thrown, always returned.</summary>
public sealed class PrefaultResult
{
    // Built by the library only: a result reports what a call did.
    internal PrefaultResult()
    {
    }

    // A copy to change with an initializer (the tool restates a few figures); every property is copied.
    internal PrefaultResult(PrefaultResult other)
    {
        HasRun = other.HasRun;
        IsPartial = other.IsPartial;
        Reason = other.Reason;
        Bytes = other.Bytes;
        BytesAlreadyResident = other.BytesAlreadyResident;
        BytesAlreadyResidentUnknown = other.BytesAlreadyResidentUnknown;
        BytesResident = other.BytesResident;
        BytesResidentUnknown = other.BytesResidentUnknown;
        BytesSkipped = other.BytesSkipped;
        BytesRequested = other.BytesRequested;
        Elapsed = other.Elapsed;
        Method = other.Method;
        Failures = other.Failures;
        IsCanceled = other.IsCanceled;
        RegionCount = other.RegionCount;
        HugePageAdvisedBytes = other.HugePageAdvisedBytes;
        ReadAheadDescription = other.ReadAheadDescription;
        MechanismDescription = other.MechanismDescription;
        Threads = other.Threads;
    }

    /// <summary>True when the sweep (or hint) ran over at least part of the regions.</summary>
    public bool HasRun { get; internal init; }

    /// <summary>True when the RAM budget covered only the first regions (in the order given); see <see cref="BytesSkipped"/>.</summary>
    public bool IsPartial { get; internal init; }

    /// <summary>Why it ran, ran in part, or did not run, in words for a log.</summary>
    public string Reason { get; internal init; } = string.Empty;

    /// <summary>Bytes covered by the sweep, after merging overlapping and duplicate regions.</summary>
    public long Bytes { get; internal init; }

    /// <summary>
    /// Bytes of the merged regions already resident before the sweep; 0 where unsupported. Bytes the kernel would not
    /// tell of are in <see cref="BytesAlreadyResidentUnknown"/>.
    /// </summary>
    public long BytesAlreadyResident { get; internal init; }

    /// <summary>
    /// Bytes of the merged regions whose residency before the sweep the kernel would not tell
    /// (<see cref="ResidencyInfo.UnknownBytes"/>); they are swept and weighed by the RAM gate as not resident.
    /// </summary>
    public long BytesAlreadyResidentUnknown { get; internal init; }

    /// <summary>
    /// Bytes of the merged regions resident when the run ended; less than requested where the kernel reclaimed pages
    /// the sweep brought in. 0 where unsupported; what the kernel would not tell is in <see cref="BytesResidentUnknown"/>.
    /// </summary>
    public long BytesResident { get; internal init; }

    /// <summary>
    /// Of the merged regions' bytes, those whose residency when the run ended the kernel would not tell (see
    /// <see cref="ResidencyInfo.UnknownBytes"/>); not in <see cref="BytesResident"/>.
    /// </summary>
    public long BytesResidentUnknown { get; internal init; }

    /// <summary>Bytes of the merged regions left out: by the RAM budget, cancellation, failures, or sparse-file holes.</summary>
    public long BytesSkipped { get; internal init; }

    /// <summary>Bytes of all regions after merging (what was asked for); 0 under <c>SHARPI_PREFAULT=off</c>, which merges nothing.</summary>
    public long BytesRequested { get; internal init; }

    /// <summary>Wall time of the sweep (zero when nothing ran).</summary>
    public TimeSpan Elapsed { get; internal init; }

    /// <summary><see cref="Bytes"/> per second of <see cref="Elapsed"/>, in GiB/s (0 when nothing ran).</summary>
    public double GiBPerSecond => Elapsed > TimeSpan.Zero ? Bytes / (double)(1L << 30) / Elapsed.TotalSeconds : 0;

    /// <summary>The mechanism that brought the pages in.</summary>
    public PrefaultMethod Method { get; internal init; }

    /// <summary>The regions (or parts) that failed; the rest still ran.</summary>
    public IReadOnlyList<RegionFailure> Failures { get; internal init; } = [];

    /// <summary>
    /// True when the run's cancellation token stopped the sweep early, or stopped the run before its sweep began
    /// (then <see cref="HasRun"/> is false: nothing was advised, hinted or swept).
    /// </summary>
    public bool IsCanceled { get; internal init; }

    /// <summary>Number of regions after merging.</summary>
    public int RegionCount { get; internal init; }

    /// <summary>
    /// Bytes of the mappings advised <c>MADV_HUGEPAGE</c> before the sweep; the advice stays after the run
    /// (<see cref="PrefaultOptions.IsHugePageAdviceEnabled"/>).
    /// </summary>
    public long HugePageAdvisedBytes { get; internal init; }

    /// <summary>
    /// How the file bytes were read ahead before the sweep mapped them, and why, in words for a log (Linux).
    /// Empty where nothing was read ahead.
    /// </summary>
    public string ReadAheadDescription { get; internal init; } = string.Empty;

    /// <summary>What the sweep did to each chunk and why, in words for a log. Empty where no sweep ran.</summary>
    public string MechanismDescription { get; internal init; } = string.Empty;

    /// <summary>Threads that swept, the calling one included; 0 where no sweep ran.</summary>
    public int Threads { get; internal init; }
}
