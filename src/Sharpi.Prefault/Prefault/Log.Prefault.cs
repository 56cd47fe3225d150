using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>Prefault's log messages (event ids 1-99), declared once through the source generator.</summary>
internal static partial class Log
{
    [LoggerMessage(EventId = 1, Level = LogLevel.Information,
        Message = "[{Label}] Pre-faulted {Bytes:N0} bytes ({BytesAlreadyResident:N0} already resident) in {Seconds:F2} s ({GiBPerSecond:F2} GiB/s) via {Method}{Outcome}")]
    internal static partial void Completed(ILogger logger, string label, long bytes, long bytesAlreadyResident, double seconds, double gibPerSecond, string method, PrefaultOutcomeText outcome);

    /// <summary>The reasons behind <see cref="Completed"/>'s line: how chunks were read, touched and read ahead.</summary>
    [LoggerMessage(EventId = 18, Level = LogLevel.Debug, Message = "[{Label}] How: {Mechanism}; read-ahead: {ReadAhead}")]
    internal static partial void How(ILogger logger, string label, string mechanism, string readAhead);

    [LoggerMessage(EventId = 2, Level = LogLevel.Information, Message = "[{Label}] Prefault skipped: {Reason}")]
    internal static partial void Skipped(ILogger logger, string label, string reason);

    [LoggerMessage(EventId = 5, Level = LogLevel.Warning, Message = "[{Label}] Region {Name} ({Bytes:N0} bytes) not prefaulted: {Reason}")]
    internal static partial void RegionFailed(ILogger logger, string label, string name, long bytes, string reason);

    [LoggerMessage(EventId = 7, Level = LogLevel.Information, Message = "[{Label}] Partial prefault: {Reason}")]
    internal static partial void PartialRun(ILogger logger, string label, string reason);

    /// <summary>The populate probe's failure, with the same fields as <see cref="CallFailed(ILogger, string, nint, long, PlatformError)"/>.</summary>
    internal static void PopulateUnsupported(ILogger logger, PlatformError error)
    {
        if (logger.IsEnabled(LogLevel.Debug))
        {
            PopulateUnsupported(logger, error.Call, error.Kind, error.Code, error.Message);
        }
    }

    [LoggerMessage(EventId = 8, Level = LogLevel.Debug, SkipEnabledCheck = true,
        Message = "MADV_POPULATE_READ is not supported by this kernel: {Call} failed ({ErrorKind} {ErrorCode}): {ErrorMessage}; using the touch sweep.")]
    private static partial void PopulateUnsupported(ILogger logger, string call, PlatformErrorKind errorKind, int errorCode, string errorMessage);

    [LoggerMessage(EventId = 9, Level = LogLevel.Warning, Message = "[{Label}] The progress callback threw; progress reports stop, the prefault goes on.")]
    internal static partial void ProgressFailed(ILogger logger, string label, Exception exception);

    [LoggerMessage(EventId = 10, Level = LogLevel.Error, Message = "[{Label}] The background prefault failed; the engine goes on without it.")]
    internal static partial void BackgroundFailed(ILogger logger, string label, Exception exception);

    [LoggerMessage(EventId = 16, Level = LogLevel.Error, Message = "[{Label}] The prefault failed; the engine goes on without it.")]
    internal static partial void RunFailed(ILogger logger, string label, Exception exception);

    [LoggerMessage(EventId = 11, Level = LogLevel.Debug,
        Message = "[{Label}] Sampled {SpansSampled} 2 MiB spans after populating them ({SampledNanosecondsPerPage:0} ns a sampled page on average); read every page of the {SpansTouched} whose sample was slower than {SlowPageNanoseconds:0} ns a page (a host fault)")]
    internal static partial void TouchedAfterPopulate(ILogger logger, string label, long spansTouched, long spansSampled, double sampledNanosecondsPerPage, double slowPageNanoseconds);

    [LoggerMessage(EventId = 12, Level = LogLevel.Debug,
        Message = "[{Label}] File bytes staged before the populate: {ViewCount} read-only huge-page view(s) of {ViewBytes:N0} bytes under writable mappings; exact reads under {ExactMappings} sparsely selected mapping(s)")]
    internal static partial void StagedFileReads(ILogger logger, string label, int viewCount, long viewBytes, int exactMappings);

    [LoggerMessage(EventId = 13, Level = LogLevel.Warning,
        Message = "[{Label}] No thread could be started for the background prefault (the process or its pids cgroup is at its thread limit); it runs on the calling thread, and Start returns when it is done")]
    internal static partial void BackgroundThreadUnavailable(ILogger logger, string label);

    [LoggerMessage(EventId = 14, Level = LogLevel.Warning,
        Message = "[{Label}] The touch is refused: the kernel will not read this process's memory for it (process_vm_readv refused, a seccomp filter?) and /proc/self/maps cannot be read, so it cannot prove a page is inside its file, and a load past a file's end would be fatal (SIGBUS). Issuing the read-ahead hint only.")]
    internal static partial void TouchRefused(ILogger logger, string label);

    [LoggerMessage(EventId = 15, Level = LogLevel.Debug,
        Message = "[{Label}] Populated pages are not sampled: the CPU reports no hypervisor and no balloon reports free pages, so no host is known to fault them in at their first access")]
    internal static partial void NotSampledWithoutHypervisor(ILogger logger, string label);

    [LoggerMessage(EventId = 17, Level = LogLevel.Debug,
        Message = "[{Label}] The touch reads through the kernel (process_vm_readv), not through the engine's own mapping: a memfd to write the mapping into is refused ({Error}; a seccomp filter?)")]
    internal static partial void MappingTouchRefused(ILogger logger, string label, PlatformError error);

    /// <summary>The trial's Debug line: what it chose and each candidate's cost, described only where the line is written.</summary>
    internal static void TrialChose(ILogger logger, string label, SweepMechanism mechanism, PopulateMechanism chosen, TouchAfter touchAfter, TrialOutcome trial)
    {
        if (logger.IsEnabled(LogLevel.Debug))
        {
#pragma warning disable CA1873 // The IsEnabled check above is the guard the rule asks for.
            TrialChose(logger, label, chosen.Name, mechanism.Describe(chosen, touchAfter, trial));
#pragma warning restore CA1873
        }
    }

    [LoggerMessage(EventId = 19, Level = LogLevel.Debug, SkipEnabledCheck = true, Message = "[{Label}] The trial chose {Chosen}: {Trial}")]
    private static partial void TrialChose(ILogger logger, string label, string chosen, string trial);
}
