using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault.LLamaSharp;

// The companion's messages (event ids 600-619).
internal static partial class Log
{
    [LoggerMessage(EventId = 600, Level = LogLevel.Information,
        Message = "[{Label}] Loaded {Path} ({Mode}) in {Seconds:F3} s; {Count} tensors repacked ({Source}); gave back {DuringLoad:N0} bytes during the load and {AfterLoad:N0} after it")]
    internal static partial void Loaded(ILogger logger, string label, string path, LLama.Native.LLamaLoadMode mode, double seconds, int count, RepackSource source, long duringLoad, long afterLoad);

    [LoggerMessage(EventId = 601, Level = LogLevel.Warning, Message = "[{Label}] Giving back the repacked tensors' pages stopped: {Reason}")]
    internal static partial void ReleaseStopped(ILogger logger, string label, string reason);

    [LoggerMessage(EventId = 602, Level = LogLevel.Information, Message = "[{Label}] Locked {Locked:N0} of {Requested:N0} bytes of tensors read in place ({Decision})")]
    internal static partial void LockedInPlace(ILogger logger, string label, long locked, long requested, RamGateDecision decision);

    [LoggerMessage(EventId = 603, Level = LogLevel.Information, Message = "[{Label}] Page cache warm-up of {Path}: {Bytes:N0} of {Length:N0} bytes in {Seconds:F3} s ({Method}{Stopped}); resident when the load returned: {Resident}")]
    internal static partial void Warmed(ILogger logger, string label, string path, long bytes, long length, double seconds, string method, string stopped, string resident);

    [LoggerMessage(EventId = 604, Level = LogLevel.Warning, Message = "[{Label}] {Path} could not be read as a GGUF, so nothing is given back or locked: {Reason}")]
    internal static partial void NoTensorIndex(ILogger logger, string label, string path, string reason);

    [LoggerMessage(EventId = 605, Level = LogLevel.Warning, Message = "[{Label}] {Step} failed after the load; the model is loaded: {Reason}")]
    internal static partial void AfterLoadFailed(ILogger logger, string label, string step, string reason);
}
