using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

// MmapLock and its lease (310-319).
internal static partial class Log
{
    [LoggerMessage(EventId = 310, Level = LogLevel.Information, Message = "[{Label}] Locked {BytesLocked:N0} of {BytesRequested:N0} bytes in memory ({Ranges} ranges)")]
    internal static partial void Locked(ILogger logger, string label, long bytesLocked, long bytesRequested, int ranges);

    [LoggerMessage(EventId = 311, Level = LogLevel.Warning, Message = "[{Label}] Could not lock {Name} ({Bytes:N0} bytes); running unlocked: {Reason}")]
    internal static partial void LockFailed(ILogger logger, string label, string name, long bytes, string reason);

    [LoggerMessage(EventId = 312, Level = LogLevel.Debug, Message = "[{Label}] Unlocked {Bytes:N0} bytes")]
    internal static partial void Unlocked(ILogger logger, string label, long bytes);

    [LoggerMessage(EventId = 313, Level = LogLevel.Warning, Message = "[{Label}] RAM gate left {Bytes:N0} bytes unlocked: {Reason}")]
    internal static partial void LockGated(ILogger logger, string label, long bytes, string reason);

    [LoggerMessage(EventId = 314, Level = LogLevel.Information,
        Message = "[{Label}] Left {Bytes:N0} bytes as they were: the process had locked them already (mlock or mlockall), so the lease neither locks nor unlocks them")]
    internal static partial void AlreadyLocked(ILogger logger, string label, long bytes);
}
