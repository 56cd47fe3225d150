using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

// MmapReclaim (300-309) and MmapLock (310-319).
internal static partial class Log
{
    [LoggerMessage(EventId = 300, Level = LogLevel.Information,
        Message = "[{Label}] Released {Released} of {Requested} with MADV_DONTNEED ({SkippedCount} ranges kept resident)")]
    internal static partial void Released(ILogger logger, string label, string released, string requested, int skippedCount);

    [LoggerMessage(EventId = 301, Level = LogLevel.Debug, Message = "[{Label}] Kept {Name} ({Bytes}) resident: {Reason}")]
    internal static partial void KeptResident(ILogger logger, string label, string name, string bytes, string reason);

    [LoggerMessage(EventId = 302, Level = LogLevel.Information, Message = "[{Label}] Reclaim skipped: {Reason}")]
    internal static partial void ReclaimNotRun(ILogger logger, string label, string reason);

    [LoggerMessage(EventId = 303, Level = LogLevel.Warning, Message = "[{Label}] Reclaim refused, nothing released: {Count} ranges would lose data or are not mapped")]
    internal static partial void ReclaimRefused(ILogger logger, string label, int count);

    [LoggerMessage(EventId = 310, Level = LogLevel.Information, Message = "[{Label}] Locked {Locked} of {Requested} in memory ({Ranges} ranges)")]
    internal static partial void Locked(ILogger logger, string label, string locked, string requested, int ranges);

    [LoggerMessage(EventId = 311, Level = LogLevel.Warning, Message = "[{Label}] Could not lock {Name} ({Bytes}); running unlocked: {Reason}")]
    internal static partial void LockFailed(ILogger logger, string label, string name, string bytes, string reason);

    [LoggerMessage(EventId = 312, Level = LogLevel.Debug, Message = "[{Label}] Unlocked {Bytes}")]
    internal static partial void Unlocked(ILogger logger, string label, string bytes);
}
