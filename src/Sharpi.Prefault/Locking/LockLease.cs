using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>
/// Pages locked in memory by <see cref="MmapLock.Lock(IReadOnlyList{PrefaultRegion}, LockOptions?)"/>; dispose to unlock them.
/// A lock the OS refused is reported in <see cref="Failures"/> (and logged), never thrown: the engine runs on, unlocked.
/// </summary>
/// <remarks>
/// Pages shared with another live lease stay locked until the last lease over them is disposed. <see cref="Dispose"/>
/// is idempotent and thread-safe; a lease never disposed keeps its pages locked until unmapped.
/// </remarks>
public sealed class LockLease : IDisposable
{
    private readonly (nint Start, nint End)[] _ranges;
    private readonly ILogger _logger;
    private readonly string _label;
    private int _disposed;

    internal LockLease((nint Start, nint End)[] ranges, long lockedBytes, long requestedBytes, long alreadyLockedBytes,
        IReadOnlyList<RegionFailure> failures, RamGateDecision decision, ILogger logger, string label)
    {
        Decision = decision;
        _ranges = ranges;
        LockedBytes = lockedBytes;
        RequestedBytes = requestedBytes;
        AlreadyLockedBytes = alreadyLockedBytes;
        Failures = failures;
        _logger = logger;
        _label = label;
    }

    /// <summary>Bytes this lease locked and unlocks on <see cref="Dispose"/>, in whole pages.</summary>
    public long LockedBytes { get; }

    /// <summary>Bytes the lease tried to lock: the regions in whole pages, merged, less sparse-file holes.</summary>
    public long RequestedBytes { get; }

    /// <summary>
    /// Bytes of the requested pages the process had locked already, outside any lease (the engine's own <c>mlock</c>);
    /// <see cref="Dispose"/> leaves them locked. Linux only; 0 elsewhere.
    /// </summary>
    public long AlreadyLockedBytes { get; }

    /// <summary>What the RAM gate decided (<see cref="LockOptions.RamGate"/>), with the reason in words.</summary>
    public RamGateDecision Decision { get; }

    /// <summary>The ranges left unlocked (refused by the OS or past the RAM budget), each with the reason.</summary>
    public IReadOnlyList<RegionFailure> Failures { get; }

    /// <summary>True when every requested page is locked: by this lease, or by the process already (<see cref="AlreadyLockedBytes"/>).</summary>
    public bool IsFullyLocked => Failures.Count == 0;

    /// <summary>True once <see cref="Dispose"/> ran.</summary>
    public bool IsDisposed => Volatile.Read(ref _disposed) != 0;

    /// <summary>Unlocks the pages no other live lease holds. Idempotent and thread-safe; never throws.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        LockRegistry.Process.Release(_ranges, Unlock);

        if (LockedBytes > 0)
        {
            Log.Unlocked(_logger, _label, LockedBytes);
        }
    }

    private void Unlock(nint start, nint end)
    {
        if (!PlatformLock.TryUnlock(start, end, out PlatformError error))
        {
            Log.CallFailed(_logger, _label, start, end - start, error);
        }
    }
}
