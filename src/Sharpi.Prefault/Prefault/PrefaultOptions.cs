using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>
/// Immutable settings for a prefault: <c>new PrefaultOptions { Label = "engine", Logger = log }</c>; what is not set keeps
/// its default. Every setter validates, so a bad value fails at construction, not in the middle of a load.
/// </summary>
public sealed class PrefaultOptions
{
    // The default chunk size: 32 MiB.
    internal const long DefaultChunkSize = 32 * 1024 * 1024;

    // The largest chunk size: 1 TiB (a chunk that size is one chunk per region; larger values are a mistake).
    internal const long MaxChunkSize = 1L << 40;

    // The default number of sweep threads: the processor count, and at least 8, since a sweep waits on the disk far
    // more than it computes (docs/architecture.md, "The public API").
    internal static int DefaultMaxDegreeOfParallelism => Math.Max(8, Environment.ProcessorCount);

    // The default RAM fraction: 0.8.
    internal const double DefaultRamFraction = RamGateDecision.DefaultFraction;

    private readonly string _label = "prefault";
    private readonly double _ramFraction = DefaultRamFraction;
    private readonly int _maxDegreeOfParallelism = DefaultMaxDegreeOfParallelism;
    private readonly long _chunkSize = DefaultChunkSize;
    private readonly RamGate _ramGate = RamGate.FitsInRam;
    private readonly PrefaultStrategy _strategy = PrefaultStrategy.Auto;
    private readonly ThreadPriority? _workerPriority;

    // The options of a call that passes none; shared, since nothing can change them.
    internal static PrefaultOptions Default { get; } = new();

    /// <summary>A short name for logs and progress, e.g. the engine or model name. Default <c>"prefault"</c>.</summary>
    /// <exception cref="ArgumentException">The value is null, empty or white space.</exception>
    public string Label { get => _label; init => _label = ThrowHelper.NotBlank(value); }

    /// <summary>How the RAM-fit heuristic limits the prefault. Default <see cref="RamGate.FitsInRam"/>.</summary>
    public RamGate RamGate { get => _ramGate; init => _ramGate = ThrowHelper.Defined(value); }

    /// <summary>
    /// The fraction (0 &lt; f &lt;= 1) of the memory that can hold the regions that a prefault may fill. Default 0.8.
    /// The environment variable <c>SHARPI_PREFAULT_RAM_FRACTION</c>, when set to a valid value, overrides it.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not in (0, 1] or is not a number.</exception>
    public double RamFraction { get => _ramFraction; init => _ramFraction = ThrowHelper.ValidFraction(value); }

    /// <summary>
    /// The most threads that sweep at once (>= 1). Default: the processor count, and at least 8 (a sweep waits on the
    /// disk far more than it computes). A sweep starts no more threads than it has chunks, nor more than eight per processor (at least the default), whatever is asked:
    /// past that, threads only wait on the same disk. <see cref="MmapPrefault.Start(IReadOnlyList{PrefaultRegion}, PrefaultOptions?, CancellationToken)"/>,
    /// where it reads in read-ahead windows, runs no more than its background thread and one helper per processor.
    /// <see cref="PrefaultResult.Threads"/> says how many swept.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 1.</exception>
    public int MaxDegreeOfParallelism
    {
        get => _maxDegreeOfParallelism;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            _maxDegreeOfParallelism = value;
        }
    }

    /// <summary>
    /// The unit of work, in bytes (at least one page; rounded up to whole pages): one populate call (and its touch, where one runs).
    /// The threads take chunks in the order given from one shared counter, and cancellation and progress are checked
    /// between chunks. Default 32 MiB. At 32 MiB, on a VM that reports free pages to its host where the populate reads
    /// through the device's own read-ahead (see <see cref="PrefaultResult.ReadAheadDescription"/>), a run over a set
    /// under 1 GiB uses smaller chunks (up to four a thread, none smaller than the device's read-ahead), and says so;
    /// any other value is used as given.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 1 or greater than 1 TiB.</exception>
    public long ChunkSize
    {
        get => _chunkSize;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1L);
            ArgumentOutOfRangeException.ThrowIfGreaterThan(value, MaxChunkSize);
            _chunkSize = Pages.Ceiling(value);
        }
    }

    /// <summary>Which mechanism may be used. Default <see cref="PrefaultStrategy.Auto"/>.</summary>
    public PrefaultStrategy Strategy { get => _strategy; init => _strategy = ThrowHelper.Defined(value); }

    /// <summary>
    /// Priority of the sweep's worker threads; null (the default) for the entry point's own:
    /// <see cref="ThreadPriority.Normal"/> for <see cref="MmapPrefault.Run(IReadOnlyList{PrefaultRegion}, PrefaultOptions?, CancellationToken)"/>,
    /// <see cref="ThreadPriority.BelowNormal"/> for <see cref="MmapPrefault.Start(IReadOnlyList{PrefaultRegion}, PrefaultOptions?, CancellationToken)"/>,
    /// its helpers too where it reads in read-ahead windows (see Start), so a background prefault does not starve the
    /// init work it overlaps. Set, it applies to every thread of the sweep
    /// (set <see cref="ThreadPriority.Normal"/> to have it compete). On Linux, where <see cref="Thread.Priority"/> alone changes nothing without privileges, a
    /// below-normal priority also raises each worker's nice value (10 for <see cref="ThreadPriority.BelowNormal"/>, 19
    /// for <see cref="ThreadPriority.Lowest"/>).
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not a defined <see cref="ThreadPriority"/>.</exception>
    public ThreadPriority? WorkerPriority
    {
        get => _workerPriority;
        init
        {
            if (value is ThreadPriority priority)
            {
                ThrowHelper.ThrowIfUndefined(priority, nameof(value));
            }

            _workerPriority = value;
        }
    }

    /// <summary>
    /// Whether the sweep may give the read-only file mappings under the regions <c>madvise(MADV_HUGEPAGE)</c> first
    /// (Linux, THP mode <c>always</c> or <c>madvise</c>). Each fault then reads a 2 MiB page-cache folio whatever the
    /// device's <c>read_ahead_kb</c> says, and the engine's first request maps the weights with 2 MiB entries. It
    /// changes the engine's mapping beyond the run: the whole mapping (never a part, so no mapping is split) keeps
    /// the advice, its page cache is kept and reclaimed in 2 MiB folios, and khugepaged may collapse it. Turn it off
    /// where the mapping's flags must stay as the engine set them. Default true. What was advised is in
    /// <see cref="PrefaultResult.HugePageAdvisedBytes"/>.
    /// </summary>
    public bool IsHugePageAdviceEnabled { get; init; } = true;

    /// <summary>Where the run logs (one Information line per run, warnings for failures, errno details at Debug). Default: none.</summary>
    public ILogger? Logger { get; init; }

    /// <summary>
    /// Receives bytes done/total at most about ten times a second, and once at the end. Called on the sweep's calling
    /// thread: the caller's own for <c>Run</c>, the background thread for <c>Start</c>. A callback that throws is
    /// logged once and dropped; the run goes on.
    /// </summary>
    public IProgress<PrefaultProgress>? Progress { get; init; }

    /// <summary>The sweep's clock (see <see cref="StrideSweep.HelpersAfter"/>); the system's unless a test freezes it.</summary>
    internal TimeProvider Clock { get; init; } = TimeProvider.System;
}
