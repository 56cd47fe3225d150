using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>Direct I/O reads: event ids 200-299.</summary>
internal static partial class Log
{
    [LoggerMessage(EventId = 200, Level = LogLevel.Information, Message = "Direct I/O unavailable for '{Path}'; reading it buffered: {Reason}")]
    internal static partial void DirectIOFallback(ILogger logger, string path, string reason);

    [LoggerMessage(EventId = 201, Level = LogLevel.Debug,
        Message = "Opened '{Path}' for Direct I/O: offset alignment {OffsetAlignment} ({AlignmentSource}), memory alignment {MemoryAlignment}, {ReadsInFlight} x {BlockSize} bytes in flight at most")]
    internal static partial void DirectIOOpened(ILogger logger, string path, int offsetAlignment, string alignmentSource, int memoryAlignment, int readsInFlight, int blockSize);

    [LoggerMessage(EventId = 202, Level = LogLevel.Warning,
        Message = "No thread could be started to read '{Path}' (the process or its pids cgroup is at its thread limit): reading on the calling thread")]
    internal static partial void DirectIOThreadsUnavailable(ILogger logger, string path);
}
