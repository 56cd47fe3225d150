using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>Every log message of the library, declared once through the source generator.</summary>
internal static partial class Log
{
    /// <summary>
    /// The system call behind a failure, as structured fields: <c>Call</c> (as written in C), <c>ErrorKind</c> (Errno or
    /// Win32: the same number means different errors), <c>ErrorCode</c> and <c>ErrorMessage</c> (the platform's text).
    /// </summary>
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
