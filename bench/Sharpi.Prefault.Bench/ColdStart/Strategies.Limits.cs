using System.Diagnostics;

namespace Sharpi.Prefault.Bench;

/// <summary>The limit readers: the candidates for the <c>limit</c> row, each its own row.</summary>
internal abstract partial class ColdStartStrategy
{
    /// <summary>Cold limit reader: O_DIRECT, <c>readsInFlight</c> reads of <see cref="BenchSettings.LimitBlockSize"/> in flight.</summary>
    private sealed class DirectReadLimit(int readsInFlight, bool hugePages) : ColdStartStrategy(
        hugePages ? $"limit-direct-{readsInFlight}" : $"limit-direct-{readsInFlight}-4k",
        $"cold: O_DIRECT, {readsInFlight} reads in flight into reused, pre-faulted aligned buffers" +
            (hugePages ? " backed by 2 MiB pages (MADV_HUGEPAGE)" : " of 4 KiB pages (what the limit used to be)"))
    {
        internal override bool IsLimit => true;

        internal override bool RunsIn(CacheState cache) => cache == CacheState.Cold;

        internal override StrategyTimes Execute(WeightsFile file, CacheState cache, BenchSettings settings)
        {
            (double seconds, string method) = SequentialReadLimit.Measure(file.Path, file.Length, readsInFlight, settings.LimitBlockSize, hugePages);
            return new StrategyTimes(seconds, 0, method);
        }
    }

    /// <summary>Cold limit reader: large buffered reads through the page cache (read-ahead does the I/O), no mapping, no faults.</summary>
    private sealed class BufferedLimit() : ColdStartStrategy("limit-buffered",
        "cold: read() of large blocks into reused buffers, one contiguous slice per thread (--limit-threads), after eviction")
    {
        internal override bool IsLimit => true;

        internal override bool RunsIn(CacheState cache) => cache == CacheState.Cold;

        internal override StrategyTimes Execute(WeightsFile file, CacheState cache, BenchSettings settings)
        {
            (double seconds, string method) = BufferedReadLimit.Measure(file.Path, file.Length, settings.LimitThreads, settings.LimitBlockSize);
            return new StrategyTimes(seconds, 0, method);
        }
    }

    /// <summary>Warm limit reader: a bare MADV_POPULATE_READ of a fully cached file (page tables only), one slice per thread.</summary>
    private sealed class PopulateLimit() : ColdStartStrategy("limit-populate",
        "warm: bare MADV_POPULATE_READ of a fully cached file, one slice per thread, no request")
    {
        internal override bool IsLimit => true;

        internal override bool RunsIn(CacheState cache) => cache == CacheState.Warm;

        internal override StrategyTimes Execute(WeightsFile file, CacheState cache, BenchSettings settings)
        {
            using MappedFile mapped = Map(file);
            long started = Stopwatch.GetTimestamp();
            RawPopulate.Run(mapped.Region.Address, mapped.Region.Length, settings.PrefaultThreads);
            return new StrategyTimes(Stopwatch.GetElapsedTime(started).TotalSeconds, 0, "madvise");
        }
    }
}
