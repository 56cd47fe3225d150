using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

internal static partial class Log
{
    /// <summary>ErrorKind tells errno from Win32: one number, two errors.</summary>
    internal static void CallFailed(ILogger logger, string label, nint address, long length, PlatformError error)
    {
        if (logger.IsEnabled(LogLevel.Debug))
        {
            CallFailed(logger, label, error.Call, address, length, error.Kind, error.Code, error.Message);
        }
    }

    [LoggerMessage(EventId = 6, Level = LogLevel.Debug, SkipEnabledCheck = true,
        Message = "[{Label}] {Call} at 0x{Address:X} length {Length} failed ({ErrorKind} {ErrorCode}): {ErrorMessage}")]
    private static partial void CallFailed(ILogger logger, string label, string call, nint address, long length, PlatformErrorKind errorKind, int errorCode, string errorMessage);
}
