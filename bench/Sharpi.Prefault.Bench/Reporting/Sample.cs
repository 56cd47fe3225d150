namespace Sharpi.Prefault.Bench;

/// <summary>One repetition of one row, as measured.</summary>
internal sealed record Sample(string Strategy, CacheState Cache, StrategyTimes Times, FaultCounts Faults, double ResidentBefore, double ResidentAfter,
    double? InitSeconds = null)
{
    /// <inheritdoc cref="ResultRow.ReadAheadKb"/>
    internal int? ReadAheadKb { get; init; }

    /// <inheritdoc cref="ResultRow.Device"/>
    internal string? Device { get; init; }

    internal RunPass Pass => new(Device, ReadAheadKb);

    /// <summary>A cold row's wait for free page reporting to settle after its eviction (<c>--settle</c>), before anything was counted.</summary>
    internal double? SettleSeconds { get; init; }

    /// <summary>The disk's read counters over the row (strategy and request), where the file has a disk.</summary>
    internal DiskStats? Disk { get; init; }

    /// <inheritdoc cref="ResultRow.FirstLayerSeconds"/>
    internal double? FirstLayerSeconds { get; init; }

    /// <inheritdoc cref="ResultRow.SweepGibPerSecond"/>
    internal double? SweepGibPerSecond { get; init; }

    /// <inheritdoc cref="ResultRow.InitWaitSeconds"/>
    internal double? InitWaitSeconds { get; init; }

    /// <inheritdoc cref="ResultRow.CreateSeconds"/>
    internal double? CreateSeconds { get; init; }

    /// <summary>Engine rows: the session's prepacking setting, "off" or "on"; rows group by it.</summary>
    internal string? Prepacking { get; init; }

    /// <summary>
    /// Engine rows: from the row's start to the end of its first request, timed whole (a background prefault overlaps
    /// the init, so the parts do not add up to it).
    /// </summary>
    internal double? ElapsedSeconds { get; init; }

    internal double TotalSeconds => ElapsedSeconds ?? ((InitSeconds ?? 0) + (CreateSeconds ?? 0) + Times.Seconds + Times.FirstPassSeconds);

    /// <summary>
    /// Medians per (read-ahead pass, cache state, prepacking, strategy) in the order given. Where <paramref name="limitReaders"/>
    /// ran in a cache state, a <c>limit</c> row leads it: the figures of the reader with the lowest median total,
    /// and every row of that state gets its ratio to it. <paramref name="warmRequests"/> (those of the row's read-ahead pass) give each row with a
    /// request its <see cref="ResultRow.RatioToWarm"/>.
    /// </summary>
    internal static List<ResultRow> Summarize(IReadOnlyList<Sample> samples, IEnumerable<string> strategyOrder, IEnumerable<CacheState> caches,
        long bytes, IReadOnlyCollection<string> limitReaders, IReadOnlyList<WarmSample>? warmRequests = null)
    {
        var rows = new List<ResultRow>();
        string[] order = [.. strategyOrder];
        CacheState[] states = [.. caches];
        foreach (RunPass pass in samples.Select(static s => s.Pass).Distinct())
        {
            double[] warmOfPass = [.. (warmRequests ?? []).Where(w => w.Pass == pass).Select(static w => w.Seconds)];
            double? warmRequestSeconds = warmOfPass.Length > 0 ? Statistics.Median(warmOfPass) : null;
            foreach (CacheState cache in states)
            {
                var group = new List<ResultRow>();
                foreach (string? prepacking in samples.Select(static s => s.Prepacking).Distinct().Order(StringComparer.Ordinal))
                {
                    foreach (string strategy in order)
                    {
                        Sample[] runs = [.. samples.Where(s => s.Pass == pass && s.Cache == cache && s.Prepacking == prepacking && s.Strategy == strategy)];
                        if (runs.Length > 0)
                        {
                            group.Add(Row(strategy, cache, runs, bytes, warmRequestSeconds, isLimitReader: limitReaders.Contains(strategy)));
                        }
                    }
                }

                ResultRow? best = group.Where(r => limitReaders.Contains(r.Strategy)).MinBy(static r => r.TotalSeconds);
                if (best is not null)
                {
                    int candidates = group.Count(r => limitReaders.Contains(r.Strategy));
                    group.Insert(0, best with { Strategy = ColdStartStrategy.LimitName, Method = $"best of {candidates}: {best.Strategy}" });
                    for (int i = 0; i < group.Count; i++)
                    {
                        group[i] = group[i] with { RatioToLimit = group[i].LoadSeconds > 0 ? best.LoadSeconds / group[i].LoadSeconds : null };
                    }
                }

                rows.AddRange(group);
            }
        }

        return rows;
    }

    /// <summary>
    /// Cold: the strategy's time (and an engine row's session creation, where the engine reads the weights when it
    /// copies them) plus what its first request took beyond its warm one (the faults it left to the request), so a row
    /// that loads before the request and one that loads during it are compared with the limit alike. Warm, a limit
    /// reader, or no warm request measured (the overlap rows): the total.
    /// </summary>
    private static double[] LoadSeconds(CacheState cache, Sample[] runs, double? warmRequestSeconds, bool isLimitReader) =>
        cache == CacheState.Cold && !isLimitReader && !runs.Any(static s => s.Times.Host is not null) && runs.All(s => WarmOf(s, warmRequestSeconds) > 0)
            ? [.. runs.Select(s => (s.CreateSeconds ?? 0) + s.Times.Seconds + Math.Max(0, s.Times.FirstPassSeconds - WarmOf(s, warmRequestSeconds)))]
            : [.. runs.Select(static s => s.TotalSeconds)];

    /// <summary>
    /// The row's own warm request (timed beside its first); else the pass's warm request, for a row that times no
    /// warm request (every coldstart row with a request times one today); 0 when neither was timed.
    /// </summary>
    private static double WarmOf(Sample run, double? warmRequestSeconds) => run.Times.WarmPassSeconds ?? warmRequestSeconds ?? 0;

    /// <summary>
    /// Each repetition's first request over its warm one (the row's x warm is their median); null for limit readers, the
    /// fresh-process rows (no request) and rows that time no warm request (overlap).
    /// </summary>
    private static double[]? RatiosToWarm(Sample[] runs, double? warmRequestSeconds, bool isLimitReader) =>
        !isLimitReader && !runs.Any(static s => s.Times.Host is not null) && runs.All(s => WarmOf(s, warmRequestSeconds) > 0)
            ? [.. runs.Select(s => s.Times.FirstPassSeconds / WarmOf(s, warmRequestSeconds))]
            : null;

    /// <summary>
    /// The disk's bytes over its reads, all repetitions together; null where nothing was read or the disk is unknown.
    /// Shown only for rows that read from storage themselves: in the others it would be other processes' reads alone.
    /// </summary>
    private static double? AverageRequestKb(Sample[] runs)
    {
        long reads = 0;
        long bytes = 0;
        foreach (Sample run in runs)
        {
            if (run.Disk is DiskStats disk)
            {
                reads += disk.Reads;
                bytes += disk.Bytes;
            }
        }

        return reads > 0 ? bytes / 1024.0 / reads : null;
    }

    private static ResultRow Row(string strategy, CacheState cache, Sample[] runs, long bytes, double? warmRequestSeconds, bool isLimitReader)
    {
        double total = Statistics.Median(runs.Select(static s => s.TotalSeconds));
        double firstPass = Statistics.Median(runs.Select(static s => s.Times.FirstPassSeconds));
        long storage = Statistics.Median(runs.Select(static s => s.Faults.StorageBytes));
        double gib = bytes / (double)(1L << 30);
        double[] loads = LoadSeconds(cache, runs, warmRequestSeconds, isLimitReader);
        double[]? toWarm = RatiosToWarm(runs, warmRequestSeconds, isLimitReader);
        return new ResultRow
        {
            Strategy = strategy,
            Cache = CacheControl.Name(cache),
            ReadAheadKb = runs[0].ReadAheadKb,
            Device = runs[0].Device,
            Repeat = runs.Length,
            Seconds = Statistics.Median(runs.Select(static s => s.Times.Seconds)),
            FirstPassSeconds = firstPass,
            TotalSeconds = total,
            LoadSeconds = Statistics.Median(loads),
            MinLoadSeconds = loads.Min(),
            MaxLoadSeconds = loads.Max(),
            MinTotalSeconds = runs.Min(static s => s.TotalSeconds),
            MaxTotalSeconds = runs.Max(static s => s.TotalSeconds),
            GibPerSecond = total > 0 ? gib / total : 0,
            RatioToWarm = toWarm is null ? null : Statistics.Median(toWarm),
            MinRatioToWarm = toWarm?.Min(),
            MaxRatioToWarm = toWarm?.Max(),
            WarmPassSeconds = runs.All(static s => s.Times.WarmPassSeconds is not null) ? Statistics.Median(runs.Select(static s => s.Times.WarmPassSeconds!.Value)) : null,
            StorageBytes = storage,
            StorageGibPerSecond = total > 0 ? storage / (double)(1L << 30) / total : 0,
            AverageReadRequestKb = storage > 0 ? AverageRequestKb(runs) : null,
            MinorFaults = Statistics.Median(runs.Select(static s => s.Faults.Minor)),
            MajorFaults = Statistics.Median(runs.Select(static s => s.Faults.Major)),
            FirstPassMinorFaults = Statistics.Median(runs.Select(static s => s.Times.FirstPassFaults.Minor)),
            FirstPassMajorFaults = Statistics.Median(runs.Select(static s => s.Times.FirstPassFaults.Major)),
            ResidentPercentBefore = Statistics.Median(runs.Select(static s => s.ResidentBefore)),
            ResidentPercentAfter = Statistics.Median(runs.Select(static s => s.ResidentAfter)),
            Method = runs[^1].Times.Method,
            PmdMappedPercent = runs[0].Times.PmdMappedPercent is null ? null : Statistics.Median(runs.Select(static s => s.Times.PmdMappedPercent ?? 0)),
            InitSeconds = runs[0].InitSeconds is null ? null : Statistics.Median(runs.Select(static s => s.InitSeconds ?? 0)),
            CreateSeconds = runs[0].CreateSeconds is null ? null : Statistics.Median(runs.Select(static s => s.CreateSeconds ?? 0)),
            Prepacking = runs[0].Prepacking,
            Host = runs[0].Times.Host,
            Ran = runs.All(s => s.Times.Ran == runs[0].Times.Ran) ? runs[0].Times.Ran : null,
            FirstLayerSeconds = runs[0].FirstLayerSeconds is null ? null : Statistics.Median(runs.Select(static s => s.FirstLayerSeconds ?? 0)),
            SweepGibPerSecond = runs[0].SweepGibPerSecond is null ? null : Statistics.Median(runs.Select(static s => s.SweepGibPerSecond ?? 0)),
            InitWaitSeconds = runs[0].InitWaitSeconds is null ? null : Statistics.Median(runs.Select(static s => s.InitWaitSeconds ?? 0)),
            SettleSeconds = runs.All(static s => s.SettleSeconds is not null) ? Statistics.Median(runs.Select(static s => s.SettleSeconds!.Value)) : null,
        };
    }
}
