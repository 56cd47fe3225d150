using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

// MmapReclaim (300-309); MmapLock's (310-319) are in Locking/Log.Locking.cs.
internal static partial class Log
{
    [LoggerMessage(EventId = 300, Level = LogLevel.Information,
        Message = "[{Label}] Released {BytesReleased:N0} of {BytesRequested:N0} bytes with {Call} ({SkippedCount} ranges kept resident)")]
    internal static partial void Released(ILogger logger, string label, long bytesReleased, long bytesRequested, string call, int skippedCount);

    [LoggerMessage(EventId = 301, Level = LogLevel.Debug, Message = "[{Label}] Kept {Name} ({Bytes:N0} bytes) resident: {Reason}")]
    internal static partial void KeptResident(ILogger logger, string label, string name, long bytes, string reason);

    [LoggerMessage(EventId = 302, Level = LogLevel.Information, Message = "[{Label}] Reclaim skipped: {Reason}")]
    internal static partial void ReclaimNotRun(ILogger logger, string label, string reason);

    [LoggerMessage(EventId = 303, Level = LogLevel.Warning, Message = "[{Label}] Reclaim refused, nothing released: {Count} ranges would lose data or are not mapped")]
    internal static partial void ReclaimRefused(ILogger logger, string label, int count);
}
