using System.Diagnostics;

namespace Sharpi.Prefault;

/// <summary>
/// The sampled touch after a populate: each 2 MiB span is read whole only where a timed sample of its pages is slow,
/// since a host takes memory back in such blocks and reading pages with nothing to pay costs load time.
/// </summary>
internal static class TouchAfterPopulate
{
    /// <summary>A PMD-sized folio or a host huge page.</summary>
    internal const nint SpanBytes = 2 * 1024 * 1024;

    internal const int SamplePages = 16;

    /// <summary>A sampled page slower than this paid a host's fault.</summary>
    internal const double SlowPageNanoseconds = 2_000;

    internal static bool IsSlow(long elapsedTicks, long pages, double slowPageNanoseconds) =>
        pages > 0 && elapsedTicks * (1e9 / Stopwatch.Frequency) > pages * slowPageNanoseconds;
}

/// <summary>What the sweep does after each chunk's populate.</summary>
internal enum TouchAfter
{
    /// <summary>Nothing: the populate mapped every page.</summary>
    None,

    /// <summary>Each 2 MiB span sampled and read whole where slow.</summary>
    Sampled,

    /// <summary>Every page accessed once through the engine's mapping: the trial found the first access costly.</summary>
    All,
}
