using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault.LLamaSharp;

/// <summary>
/// Immutable settings for <see cref="LLamaPrefault"/>: <c>new LLamaLoadOptions { LogTap = tap, Logger = log }</c>; what
/// is not set keeps its default. Every setter validates.
/// </summary>
public sealed class LLamaLoadOptions
{
    /// <summary>
    /// The default batch of repacked tensors given back at once during the load: 32 MiB. The load's peak RSS is about
    /// read mode's plus one batch; a give-back costs what its pages cost (the mapping is looked up, not the process walked).
    /// </summary>
    public const long DefaultReleaseBatchBytes = 32L << 20;

    private readonly long _releaseBatchBytes = DefaultReleaseBatchBytes;
    private readonly string _label = "llama.cpp";

    // The options of a call that passes none; shared, since nothing can change them.
    internal static LLamaLoadOptions Default { get; } = new();

    /// <summary>
    /// Read modes (<c>LoadMode.None</c>, <c>MemoryLock</c>): warm the file's page cache from <see cref="LLamaPrefault.Start"/>
    /// on, in the background and without mapping it (<see cref="PageCache.WarmAsync"/>), so llama.cpp's reads find it
    /// cached. Default true.
    /// </summary>
    public bool IsWarmEnabled { get; init; } = true;

    /// <summary>
    /// Mapped modes (<c>MemoryMap</c>, <c>MemoryMapAndLock</c>): give back the mapped pages of the tensors llama.cpp
    /// repacked into its own buffer (<see cref="MmapReclaim.Release(IReadOnlyList{PrefaultRegion}, ReclaimOptions?)"/>),
    /// which it never reads again. Default true.
    /// </summary>
    public bool IsReleaseEnabled { get; init; } = true;

    /// <summary>
    /// With a live <see cref="LogTap"/>: give the repacked tensors back during the load, in batches of
    /// <see cref="ReleaseBatchBytes"/>, as llama.cpp finishes copying them (its progress callback runs on the loader
    /// thread between tensors), so the load's peak RSS stays near read mode's. Default true.
    /// </summary>
    public bool IsReleaseDuringLoadEnabled { get; init; } = true;

    /// <summary>Bytes of repacked tensors given back at once during the load (4 KiB to 16 GiB). Default 32 MiB.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 4 KiB to 16 GiB.</exception>
    public long ReleaseBatchBytes
    {
        get => _releaseBatchBytes;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 4096);
            ArgumentOutOfRangeException.ThrowIfGreaterThan(value, 16L << 30);
            _releaseBatchBytes = value;
        }
    }

    /// <summary>
    /// <c>MemoryMapAndLock</c>: load with <c>MemoryMap</c> instead, give the repacked tensors back, and lock only the
    /// tensors llama.cpp reads in place (<see cref="MmapLock"/>; the lease is <see cref="LLamaLoadResult.Lock"/>), where
    /// llama.cpp would lock the whole file. Default true.
    /// </summary>
    public bool IsLockInPlaceEnabled { get; init; } = true;

    /// <summary>The tap registered as llama.cpp's log callback, to learn the repacked tensors from its own lines; null: predicted from the GGUF.</summary>
    public LLamaLogTap? LogTap { get; init; }

    /// <summary>Told llama.cpp's load progress (0 to 1), on the loader thread, as LLamaSharp's own progress reporter is.</summary>
    public IProgress<float>? Progress { get; init; }

    /// <summary>A name for the logs and the lock's and reclaim's metrics. Default "llama.cpp".</summary>
    /// <exception cref="ArgumentException">The value is null, empty or white space.</exception>
    public string Label
    {
        get => _label;
        init
        {
            ArgumentException.ThrowIfNullOrWhiteSpace(value);
            _label = value;
        }
    }

    /// <summary>Where the load logs what it gave back, locked and warmed. Default: none.</summary>
    public ILogger? Logger { get; init; }
}
