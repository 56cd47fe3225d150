using System.Diagnostics;

namespace Sharpi.Prefault;

/// <summary>
/// The sampled touch after a populate (<see cref="TouchAfter.Sampled"/>): each 2 MiB span (<see cref="SpanBytes"/>)
/// has one page in <see cref="SamplePages"/> read through the kernel and timed, and is read whole only where the
/// sample ran slower than <see cref="SlowPageNanoseconds"/> a page: a host that takes memory back takes it in such
/// blocks, and reading every page where nothing is left to pay costs load time.
/// </summary>
internal static class TouchAfterPopulate
{
    /// <summary>The span judged at a time: 2 MiB, a PMD-sized folio or host huge page.</summary>
    internal const nint SpanBytes = 2 * 1024 * 1024;

    /// <summary>One page in this many of a span is read and timed before deciding to read them all.</summary>
    internal const int SamplePages = 16;

    /// <summary>A sampled page slower than this paid a host's fault: a page the host maps reads several times faster.</summary>
    internal const double SlowPageNanoseconds = 2_000;

    /// <summary>True when <paramref name="elapsedTicks"/> (Stopwatch ticks) for <paramref name="pages"/> sampled pages is slower than <paramref name="slowPageNanoseconds"/> a page.</summary>
    internal static bool IsSlow(long elapsedTicks, long pages, double slowPageNanoseconds) =>
        pages > 0 && elapsedTicks * (1e9 / Stopwatch.Frequency) > pages * slowPageNanoseconds;
}

/// <summary>What the sweep does after each chunk's populate.</summary>
internal enum TouchAfter
{
    /// <summary>Nothing: the populate mapped every page, and a first access costs no more than a later one.</summary>
    None,

    /// <summary>Each 2 MiB span sampled and read whole where the sample was slow (<see cref="TouchAfterPopulate"/>).</summary>
    Sampled,

    /// <summary>Every page accessed once through the engine's mapping: the trial found the first access costly.</summary>
    All,
}
