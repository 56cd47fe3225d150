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
    /// The fraction (0 &lt; f &lt;= 1) of available memory a prefault may fill. Default 0.8;
    /// <c>SHARPI_PREFAULT_RAM_FRACTION</c>, when valid, overrides it.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not in (0, 1] or is not a number.</exception>
    public double RamFraction { get => _ramFraction; init => _ramFraction = ThrowHelper.ValidFraction(value); }

    /// <summary>
    /// The most threads that sweep at once (>= 1). Default: the processor count, and at least 8 (a sweep waits on the
    /// disk more than it computes). <see cref="PrefaultResult.Threads"/> says how many swept.
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
    /// The unit of work in bytes, rounded up to whole pages; cancellation and progress are checked between chunks.
    /// Default 32 MiB, which the sweep may lower for a small set; any other value is used as given.
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
    /// Priority of every sweep thread; null (the default) for <see cref="ThreadPriority.Normal"/> in <c>Run</c> and
    /// <see cref="ThreadPriority.BelowNormal"/> in <c>Start</c>, so a background prefault does not starve the init.
    /// On Linux a below-normal priority also raises the threads' nice value.
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
    /// Whether the sweep may advise the read-only file mappings under the regions <c>MADV_HUGEPAGE</c> (Linux), so they
    /// read and map in 2 MiB folios. Default true.
    /// </summary>
    /// <remarks>
    /// The advice stays on the whole mapping after the run; turn it off where the mapping's flags must stay as the
    /// engine set them. <see cref="PrefaultResult.HugePageAdvisedBytes"/> says what was advised.
    /// </remarks>
    public bool IsHugePageAdviceEnabled { get; init; } = true;

    /// <summary>Where the run logs (one Information line per run, warnings for failures, errno details at Debug). Default: none.</summary>
    public ILogger? Logger { get; init; }

    /// <summary>
    /// Receives bytes done/total about ten times a second and once at the end, on the sweep's calling thread.
    /// A callback that throws is logged once and dropped; the run goes on.
    /// </summary>
    public IProgress<PrefaultProgress>? Progress { get; init; }

    /// <summary>The sweep's clock (see <see cref="StrideSweep.HelpersAfter"/>); the system's unless a test freezes it.</summary>
    internal TimeProvider Clock { get; init; } = TimeProvider.System;
}
