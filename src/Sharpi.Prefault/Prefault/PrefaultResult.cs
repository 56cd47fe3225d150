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
    /// Of the merged regions' bytes, those already resident before the sweep (cachestat on Linux 6.5+ for file
    /// mappings, else mincore; 0 where unsupported). Bytes the kernel would not say of are not counted here but in
    /// <see cref="BytesAlreadyResidentUnknown"/>.
    /// </summary>
    public long BytesAlreadyResident { get; internal init; }

    /// <summary>
    /// Of the merged regions' bytes, those whose residency before the sweep the kernel would not tell (see
    /// <see cref="ResidencyInfo.UnknownBytes"/>: a file this process may not write); they are planned as not resident,
    /// so the sweep covers them and the RAM-fit gate weighs them as memory still needed.
    /// </summary>
    public long BytesAlreadyResidentUnknown { get; internal init; }

    /// <summary>
    /// Of the merged regions' bytes, those resident when the run ended (measured as <see cref="BytesAlreadyResident"/>
    /// is, after the sweep). Where memory is short this can be less than <see cref="BytesAlreadyResident"/> plus
    /// <see cref="Bytes"/>: the kernel reclaimed pages the sweep brought in. 0 where residency is unsupported. Of a
    /// file whose page cache the kernel hides, the pages the run's process maps (after a sweep, those reclaim has not
    /// taken back); the rest is in <see cref="BytesResidentUnknown"/>.
    /// </summary>
    public long BytesResident { get; internal init; }

    /// <summary>
    /// Of the merged regions' bytes, those whose residency when the run ended the kernel would not tell (see
    /// <see cref="ResidencyInfo.UnknownBytes"/>); not in <see cref="BytesResident"/>.
    /// </summary>
    public long BytesResidentUnknown { get; internal init; }

    /// <summary>
    /// Bytes of the merged regions left out: by the RAM budget, by cancellation, by failures, or as holes of sparse
    /// files (Linux; nothing to read there, see <see cref="Reason"/>).
    /// </summary>
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
    /// Bytes of the mappings given <c>madvise(MADV_HUGEPAGE)</c> before the sweep (whole read-only file mappings under
    /// the regions; Linux with THP on); 0 when none were. The advice stays on those mappings after the run. See
    /// <see cref="PrefaultOptions.IsHugePageAdviceEnabled"/>.
    /// </summary>
    public long HugePageAdvisedBytes { get; internal init; }

    /// <summary>
    /// How the file bytes under the regions were read ahead before the sweep mapped them, and why (Linux): the
    /// huge-page advice (2 MiB folios, whatever <c>read_ahead_kb</c> says), staging views, exact reads in the
    /// device's read-ahead windows (4 KiB folios: for a selection that covers part of a mapping, so its neighbours stay
    /// on disk, and, for <c>Run</c>, on a VM that reports free pages to its host, where 2 MiB folios land on memory the
    /// host took back, wherever a window reads more a request than the device's <c>read_ahead_kb</c>; <c>Start</c>
    /// keeps the advice there and says so), or, where it reads no more, the device's own read-ahead with the page
    /// cache's own folio sizes. Empty where nothing was read ahead (everything resident, a hint, a touch, another OS).
    /// </summary>
    public string ReadAheadDescription { get; internal init; } = string.Empty;

    /// <summary>
    /// What the sweep did to each chunk, in words for a log: the method, and the touch with what it read through
    /// (the engine's own mapping, the kernel, or the files), and why not the mapping where it could not. Empty where
    /// no sweep ran.
    /// </summary>
    public string MechanismDescription { get; internal init; } = string.Empty;

    /// <summary>
    /// Threads that swept, the calling one included: 1 where everything was resident and filling the page tables was
    /// quick, so no thread was started; 0 where no sweep ran (skipped, a hint alone, or cancelled before it began).
    /// </summary>
    public int Threads { get; internal init; }
}
