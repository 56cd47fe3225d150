namespace Sharpi.Prefault;

/// <summary>What a prefault did. Immutable; never thrown, always returned.</summary>
public sealed class PrefaultResult
{
    // Built by the library only: a result reports what a call did.
    internal PrefaultResult()
    {
    }

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

    /// <summary>True when the RAM budget covered only the first regions.</summary>
    public bool IsPartial { get; internal init; }

    /// <summary>Why it ran, ran in part, or did not run, in words for a log.</summary>
    public string Reason { get; internal init; } = string.Empty;

    /// <summary>Bytes the sweep covered, after merging.</summary>
    public long Bytes { get; internal init; }

    /// <summary>Bytes of the merged regions resident before the sweep; 0 where unsupported.</summary>
    public long BytesAlreadyResident { get; internal init; }

    /// <summary>Bytes whose residency before the sweep the kernel would not tell; gated as not resident.</summary>
    public long BytesAlreadyResidentUnknown { get; internal init; }

    /// <summary>Bytes of the merged regions resident when the run ended; 0 where unsupported.</summary>
    public long BytesResident { get; internal init; }

    /// <summary>Bytes whose residency at the end the kernel would not tell.</summary>
    public long BytesResidentUnknown { get; internal init; }

    /// <summary>Bytes left out (RAM budget, cancellation, failures, holes).</summary>
    public long BytesSkipped { get; internal init; }

    /// <summary>Bytes asked for, after merging; 0 under <c>SHARPI_PREFAULT=off</c>.</summary>
    public long BytesRequested { get; internal init; }

    /// <summary>Wall time of the sweep (zero when nothing ran).</summary>
    public TimeSpan Elapsed { get; internal init; }

    /// <summary><see cref="Bytes"/> per second of <see cref="Elapsed"/>, in GiB/s (0 when nothing ran).</summary>
    public double GiBPerSecond => Elapsed > TimeSpan.Zero ? Bytes / (double)(1L << 30) / Elapsed.TotalSeconds : 0;

    /// <summary>The mechanism that brought the pages in.</summary>
    public PrefaultMethod Method { get; internal init; }

    /// <summary>The regions (or parts) that failed; the rest still ran.</summary>
    public IReadOnlyList<RegionFailure> Failures { get; internal init; } = [];

    /// <summary>True when the cancellation token stopped the run.</summary>
    public bool IsCanceled { get; internal init; }

    /// <summary>Number of regions after merging.</summary>
    public int RegionCount { get; internal init; }

    /// <summary>Bytes advised <c>MADV_HUGEPAGE</c>; the advice stays after the run.</summary>
    public long HugePageAdvisedBytes { get; internal init; }

    /// <summary>How and why file bytes were read ahead, for a log; empty where none was.</summary>
    public string ReadAheadDescription { get; internal init; } = string.Empty;

    /// <summary>What the sweep did per chunk, for a log.</summary>
    public string MechanismDescription { get; internal init; } = string.Empty;

    /// <summary>Threads that swept, the calling one included; 0 where no sweep ran.</summary>
    public int Threads { get; internal init; }
}
