using System.Diagnostics;

namespace Sharpi.Prefault;

/// <summary>A span is read whole only where its timed sample is slow: hosts take memory back in such blocks.</summary>
internal static class TouchAfterPopulate
{
    internal const nint SpanBytes = 2 * 1024 * 1024;

    internal const int SamplePages = 16;

    /// <summary>A sampled page slower than this paid a host's fault.</summary>
    internal const double SlowPageNanoseconds = 2_000;

    internal static bool IsSlow(long elapsedTicks, long pages, double slowPageNanoseconds) =>
        pages > 0 && elapsedTicks * (1e9 / Stopwatch.Frequency) > pages * slowPageNanoseconds;
}

internal enum TouchAfter
{
    None,

    Sampled,

    /// <summary>Every page accessed once: the trial found the first access costly.</summary>
    All,
}
