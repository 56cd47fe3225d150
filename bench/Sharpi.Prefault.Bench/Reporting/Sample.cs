namespace Sharpi.Prefault.Bench;

/// <summary>One repetition of one row, as measured.</summary>
internal sealed record Sample(string Strategy, CacheState Cache, StrategyTimes Times, FaultCounts Faults, double ResidentBefore, double ResidentAfter,
    double? InitSeconds = null)
{
    internal double TotalSeconds => (InitSeconds ?? 0) + Times.Seconds + Times.FirstPassSeconds;

    /// <summary>
    /// Medians per (strategy, cache) in the order given, each with its ratio to the <paramref name="limitStrategy"/>
    /// row of the same cache state (null when there is no such row).
    /// </summary>
    internal static List<ResultRow> Summarize(IReadOnlyList<Sample> samples, IEnumerable<string> strategyOrder, IEnumerable<CacheState> caches,
        long bytes, string? limitStrategy)
    {
        var rows = new List<ResultRow>();
        string[] order = [.. strategyOrder];
        foreach (CacheState cache in caches)
        {
            double? limitTotal = null;
            if (limitStrategy is not null)
            {
                Sample[] limit = [.. samples.Where(s => s.Cache == cache && s.Strategy == limitStrategy)];
                limitTotal = limit.Length > 0 ? Statistics.Median(limit.Select(static s => s.TotalSeconds)) : null;
            }

            foreach (string strategy in order)
            {
                Sample[] runs = [.. samples.Where(s => s.Cache == cache && s.Strategy == strategy)];
                if (runs.Length == 0)
                {
                    continue;
                }

                double total = Statistics.Median(runs.Select(static s => s.TotalSeconds));
                double gib = bytes / (double)(1L << 30);
                rows.Add(new ResultRow
                {
                    Strategy = strategy,
                    Cache = CacheControl.Name(cache),
                    Repeat = runs.Length,
                    Seconds = Statistics.Median(runs.Select(static s => s.Times.Seconds)),
                    FirstPassSeconds = Statistics.Median(runs.Select(static s => s.Times.FirstPassSeconds)),
                    TotalSeconds = total,
                    MinTotalSeconds = runs.Min(static s => s.TotalSeconds),
                    MaxTotalSeconds = runs.Max(static s => s.TotalSeconds),
                    GibPerSecond = total > 0 ? gib / total : 0,
                    RatioToLimit = limitTotal is double l && total > 0 ? l / total : null,
                    MinorFaults = Statistics.Median(runs.Select(static s => s.Faults.Minor)),
                    MajorFaults = Statistics.Median(runs.Select(static s => s.Faults.Major)),
                    FirstPassMinorFaults = Statistics.Median(runs.Select(static s => s.Times.FirstPassFaults.Minor)),
                    FirstPassMajorFaults = Statistics.Median(runs.Select(static s => s.Times.FirstPassFaults.Major)),
                    ResidentPercentBefore = Statistics.Median(runs.Select(static s => s.ResidentBefore)),
                    ResidentPercentAfter = Statistics.Median(runs.Select(static s => s.ResidentAfter)),
                    Method = runs[^1].Times.Method,
                    PmdMappedPercent = runs[0].Times.PmdMappedPercent is null ? null : Statistics.Median(runs.Select(static s => s.Times.PmdMappedPercent ?? 0)),
                    InitSeconds = runs[0].InitSeconds is null ? null : Statistics.Median(runs.Select(static s => s.InitSeconds ?? 0)),
                });
            }
        }

        return rows;
    }
}
