using System.Diagnostics;

namespace Sharpi.Prefault.Bench;

/// <summary>The limit readers: the candidates for the <c>limit</c> row, each its own row.</summary>
internal abstract partial class ColdStartStrategy
{
    /// <summary>Cold limit reader: O_DIRECT, <paramref name="readsInFlight"/> reads of <see cref="BenchSettings.LimitBlockSize"/> in flight.</summary>
    private static LimitReader DirectReadLimit(int readsInFlight, bool hugePages) => new(
        hugePages ? $"limit-direct-{readsInFlight}" : $"limit-direct-{readsInFlight}-4k",
        $"cold: O_DIRECT, {readsInFlight} reads in flight into reused, pre-faulted aligned buffers" +
            (hugePages ? " backed by 2 MiB pages (MADV_HUGEPAGE)" : " of 4 KiB pages (what the limit used to be)"),
        CacheState.Cold,
        Direct,
        (file, settings) => SequentialReadLimit.Measure(file.Path, file.Length, readsInFlight, settings.LimitBlockSize, hugePages));

    /// <summary>Cold limit reader: large buffered reads through the page cache (read-ahead does the I/O), no mapping, no faults.</summary>
    private static LimitReader BufferedLimit() => new("limit-buffered",
        "cold: read() of large blocks into reused buffers, one contiguous slice per thread (--limit-threads), after eviction",
        CacheState.Cold,
        Read,
        static (file, settings) => BufferedReadLimit.Measure(file.Path, file.Length, settings.LimitThreads, settings.LimitBlockSize));

    /// <summary>Warm limit reader: a bare MADV_POPULATE_READ of a fully cached file (page tables only), one slice per thread.</summary>
    private static LimitReader PopulateLimit() => new("limit-populate",
        "warm: bare MADV_POPULATE_READ of a fully cached file, one slice per thread, no request",
        CacheState.Warm,
        Mmap,
        static (file, settings) =>
        {
            using MappedFile mapped = Map(file);
            long started = Stopwatch.GetTimestamp();
            RawPopulate.Run(mapped.Region.Address, mapped.Region.Length, settings.PrefaultThreads);
            return (Stopwatch.GetElapsedTime(started).TotalSeconds, "madvise");
        });

    /// <summary>A limit reader: it reads the whole file in the one cache state it belongs to and runs no request.</summary>
    private sealed class LimitReader(string name, string description, CacheState runsIn, string mechanism,
        Func<WeightsFile, BenchSettings, (double Seconds, string Method)> read)
        : ColdStartStrategy(name, description)
    {
        internal override bool IsLimit => true;

        internal override string Mechanism => mechanism;

        internal override bool RunsIn(CacheState cache) => cache == runsIn;

        internal override StrategyTimes Execute(WeightsFile file, CacheState cache, BenchSettings settings)
        {
            (double seconds, string method) = read(file, settings);
            return new StrategyTimes(seconds, 0, method);
        }
    }
}
