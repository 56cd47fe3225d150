using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>Immutable prefault settings; every setter validates, so bad values fail at construction.</summary>
public sealed class PrefaultOptions
{
    internal const long DefaultChunkSize = 32 * 1024 * 1024;

    // 1 TiB is one chunk per region; more is a mistake.
    internal const long MaxChunkSize = 1L << 40;

    // At least 8: a sweep waits on the disk more than it computes.
    internal static int DefaultMaxDegreeOfParallelism => Math.Max(8, Environment.ProcessorCount);

    internal const double DefaultRamFraction = RamGateDecision.DefaultFraction;

    private readonly string _label = "prefault";
    private readonly double _ramFraction = DefaultRamFraction;
    private readonly int _maxDegreeOfParallelism = DefaultMaxDegreeOfParallelism;
    private readonly long _chunkSize = DefaultChunkSize;
    private readonly RamGate _ramGate = RamGate.FitsInRam;
    private readonly PrefaultStrategy _strategy = PrefaultStrategy.Auto;
    private readonly ThreadPriority? _workerPriority;

    internal static PrefaultOptions Default { get; } = new();

    /// <summary>A short name for logs. Default <c>"prefault"</c>.</summary>
    /// <exception cref="ArgumentException">The value is null, empty or white space.</exception>
    public string Label { get => _label; init => _label = ThrowHelper.NotBlank(value); }

    /// <summary>The RAM gate. Default <see cref="RamGate.FitsInRam"/>.</summary>
    public RamGate RamGate { get => _ramGate; init => _ramGate = ThrowHelper.Defined(value); }

    /// <summary>Fraction of available memory to fill. Default 0.8; <c>SHARPI_PREFAULT_RAM_FRACTION</c> overrides.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not in (0, 1] or is not a number.</exception>
    public double RamFraction { get => _ramFraction; init => _ramFraction = ThrowHelper.ValidFraction(value); }

    /// <summary>The most sweep threads. Default: the processor count, at least 8.</summary>
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

    /// <summary>The unit of work in bytes, rounded up to pages. Default 32 MiB.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 1 or greater than 1 TiB.</exception>
    public long ChunkSize { get => _chunkSize; init => _chunkSize = Pages.Ceiling(ThrowHelper.InRange(value, 1L, MaxChunkSize)); }

    /// <summary>Which mechanism may be used. Default <see cref="PrefaultStrategy.Auto"/>.</summary>
    public PrefaultStrategy Strategy { get => _strategy; init => _strategy = ThrowHelper.Defined(value); }

    /// <summary>Sweep thread priority; null: Normal in <c>Run</c>, BelowNormal in <c>Start</c>.</summary>
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

    /// <summary>Whether to advise the mappings <c>MADV_HUGEPAGE</c> (Linux); it stays after the run. Default true.</summary>
    public bool IsHugePageAdviceEnabled { get; init; } = true;

    /// <summary>Where the run logs. Default: none.</summary>
    public ILogger? Logger { get; init; }

    /// <summary>Receives bytes done/total about 10 times a second; a throwing callback is dropped.</summary>
    public IProgress<PrefaultProgress>? Progress { get; init; }

    /// <summary>The sweep's clock; tests freeze it.</summary>
    internal TimeProvider Clock { get; init; } = TimeProvider.System;
}
