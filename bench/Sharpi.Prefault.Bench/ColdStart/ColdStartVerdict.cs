using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The lines a newcomer reads first, one block per pass with cold rows: the default <c>prefault</c> row's first
/// request against warm and its load against the limit, demand faults' first request, and <c>direct-io</c>'s, which
/// has no fault left in the guest, when each first request was done; then the default row ranked among the ranked
/// rows of the pass (<see cref="ColdStartStrategy.IsRanked"/>: the library's and none, touch-1, willneed), by load and
/// by "first request done", with its place and the first row where it is not first, the other strategy rows (not the
/// limit readers) after them unranked; then the fastest way in per mechanism (O_DIRECT, mmap, read()), which says which
/// was faster on the pass's filesystem; then the plain C mmap reference, where it ran. A difference is
/// "noise" where the two rows' min-max over the repetitions overlap (with one repetition, only equal times do); a row
/// that ran the same code on the same settings (<see cref="ResultRow.Ran"/>) differs from the default by noise alone.
/// </summary>
internal static class ColdStartVerdict
{
    /// <summary>The row the verdict is about: <c>MmapPrefault.Run</c> with the defaults.</summary>
    internal const string Default = "prefault";

    /// <summary>
    /// The row whose request reads a buffer the strategy filled before it (O_DIRECT, or read() where that fell back):
    /// no fault left in the guest.
    /// </summary>
    internal const string NoFaultRow = "direct-io";

    /// <summary>The legend's line for the comparisons, printed under the table.</summary>
    internal const string Legend =
        "verdict: prefault ranked among the library's rows and none, touch-1, willneed of its pass, by load s and by first done s; " +
        "others (x prefault's) is each row's time over prefault's (under 1: sooner), not ranked the rows that copy into a buffer or run " +
        "outside (buffered-read, direct-io, vmtouch); (noise): the two rows' min-max over the repetitions overlap; (same run): the row ran what " +
        "prefault ran, the same code on the same settings, so the two differ by noise alone";

    /// <param name="rows">Every row of the run (all passes, both cache states).</param>
    /// <param name="limitReaders">The limit-* rows, which run no request: left out of the comparison, kept in the mechanisms.</param>
    /// <param name="conditions">What every pass ran under, for the heading (", free page reporting on, settled"), or empty.</param>
    internal static string? Build(IReadOnlyList<ResultRow> rows, IReadOnlyCollection<string> limitReaders, string conditions)
    {
        string cold = CacheControl.Name(CacheState.Cold);
        var lines = new List<string>();
        foreach (RunPass pass in rows.Select(static r => r.Pass).Distinct())
        {
            ResultRow[] passRows = [.. rows.Where(r => r.Pass == pass && r.Cache == cold && r.Strategy != ColdStartStrategy.LimitName)];
            ResultRow[] references = [.. passRows.Where(static r => ColdStartStrategy.IsReferenceRow(r.Strategy))];
            ResultRow[] coldRows = [.. passRows.Except(references)];
            ResultRow[] strategies = [.. coldRows.Where(r => !limitReaders.Contains(r.Strategy))];
            ResultRow? prefault = strategies.FirstOrDefault(static r => r.Strategy == Default);
            ResultRow? none = strategies.FirstOrDefault(static r => r.Strategy == "none");
            var block = new List<string>();
            if (prefault is not null && none is not null)
            {
                block.AddRange(AgainstDemandFaults(prefault, none, strategies.FirstOrDefault(static r => r.Strategy == NoFaultRow)));
            }

            if (prefault is not null && strategies.Length > 1)
            {
                ResultRow[] same = SameRun(prefault, strategies);
                if (same.Length > 0)
                {
                    block.Add(SameRunLine(prefault, same));
                }

                block.Add(Compare("by load", prefault, strategies, same, Load));
                // The fresh-process rows run no request: compared by load only.
                ResultRow[] withRequest = [.. strategies.Where(static r => r.Host is null)];
                if (withRequest.Length > 1)
                {
                    block.Add(Compare("by first request done", prefault, withRequest, same, Done));
                }
            }

            if (FastestWayIn(coldRows) is { } mechanisms)
            {
                block.Add(mechanisms);
            }

            if (prefault is not null && references.FirstOrDefault(static r => r.Strategy == ColdStartStrategy.CReferenceName) is { } c && c.LoadSeconds > 0)
            {
                block.Add($"  plain C mmap reference ({c.Strategy}): {ResultTable.Seconds(c.LoadSeconds)} s (the default's load / C's = {Number(prefault.LoadSeconds / c.LoadSeconds)})");
            }

            if (block.Count > 0)
            {
                lines.Add($"Verdict, cold, {pass.Describe()}{conditions}:");
                lines.AddRange(block);
            }
        }

        return lines.Count == 0 ? null : string.Join(Environment.NewLine, lines);
    }

    /// <summary>
    /// The report's first line: per pass with cold <c>prefault</c> and <c>none</c> rows, whether the default made the
    /// first request done sooner or LATER than no prefault and by how much, or within noise (their min-max over the
    /// repetitions overlap, as <see cref="Build"/> defines it): "Verdict: on this machine the prefault made the first
    /// request done 2.44x LATER than no prefault (2.84 s vs 1.16 s)". Null where no pass ran both rows cold.
    /// </summary>
    internal static string? Headline(IReadOnlyList<ResultRow> rows)
    {
        string cold = CacheControl.Name(CacheState.Cold);
        RunPass[] passes = [.. rows.Select(static r => r.Pass).Distinct()];
        var clauses = new List<string>();
        foreach (RunPass pass in passes)
        {
            ResultRow? prefault = rows.FirstOrDefault(r => r.Pass == pass && r.Cache == cold && r.Strategy == Default);
            ResultRow? none = rows.FirstOrDefault(r => r.Pass == pass && r.Cache == cold && r.Strategy == "none");
            if (prefault is null || none is null || prefault.TotalSeconds <= 0 || none.TotalSeconds <= 0)
            {
                continue;
            }

            string where = passes.Length > 1 ? $" at {pass.Describe()}" : string.Empty;
            string times = $"({ResultTable.Seconds(prefault.TotalSeconds)} s vs {ResultTable.Seconds(none.TotalSeconds)} s";
            clauses.Add(Done(prefault).Overlaps(Done(none))
                ? $"within noise of no prefault{where} {times}; their repetitions' min-max overlap)"
                : prefault.TotalSeconds < none.TotalSeconds
                    ? $"{ResultTable.Ratio(none.TotalSeconds / prefault.TotalSeconds)} sooner than no prefault{where} {times})"
                    : $"{ResultTable.Ratio(prefault.TotalSeconds / none.TotalSeconds)} LATER than no prefault{where} {times})");
        }

        return clauses.Count == 0 ? null : $"Verdict: on this machine the prefault made the first request done {string.Join("; ", clauses)}";
    }

    /// <summary>A row's median and its min-max over the repetitions.</summary>
    private readonly record struct Spread(double Median, double Min, double Max)
    {
        internal bool Overlaps(Spread other) => Min <= other.Max && other.Min <= Max;

        /// <summary>This median, over both min-max ranges.</summary>
        internal Spread Widen(Spread other) => this with { Min = Math.Min(Min, other.Min), Max = Math.Max(Max, other.Max) };
    }

    private static Spread Load(ResultRow r) => new(r.LoadSeconds, r.MinLoadSeconds, r.MaxLoadSeconds);

    private static Spread Done(ResultRow r) => new(r.TotalSeconds, r.MinTotalSeconds, r.MaxTotalSeconds);

    /// <summary>
    /// The other rows of the pass that ran what <paramref name="prefault"/> ran (<see cref="ResultRow.Ran"/>, the same
    /// in every repetition of both): on a VM that reports free pages the default withholds the huge-page advice, so
    /// <c>prefault-nohuge</c> runs the same code on the same settings. What separates such rows is the run's noise,
    /// which the default's own three repetitions can understate: the main job as the VM ships once put
    /// <c>prefault-nohuge</c> at 2.60-2.65 s and <c>prefault</c> at 2.96-3.62 s, the same code, and called the
    /// difference beyond noise (a run on 2026-11-27 not kept; the row's place in the order made most of it, see
    /// <see cref="ColdStartRunner.Order"/>).
    /// </summary>
    private static ResultRow[] SameRun(ResultRow prefault, ResultRow[] strategies) =>
        prefault.Ran is null ? [] : [.. strategies.Where(r => r != prefault && r.Ran == prefault.Ran)];

    /// <summary>
    /// "prefault-nohuge ran what prefault ran (populate, 8 threads, ...): the same code on the same settings, so what
    /// separates them below is this run's noise; their min-max together: load 2.60-3.62 s, done 2.67-3.70 s".
    /// </summary>
    private static string SameRunLine(ResultRow prefault, ResultRow[] same)
    {
        Spread load = same.Aggregate(Load(prefault), static (s, r) => s.Widen(Load(r)));
        Spread done = same.Aggregate(Done(prefault), static (s, r) => s.Widen(Done(r)));
        return $"  {string.Join(", ", same.Select(static r => r.Strategy))} ran what prefault ran ({prefault.Ran}): the same code on the same " +
            $"settings, so what separates them below is this run's noise; their min-max together: load " +
            $"{ResultTable.Seconds(load.Min)}-{ResultTable.Seconds(load.Max)} s, done {ResultTable.Seconds(done.Min)}-{ResultTable.Seconds(done.Max)} s";
    }

    /// <param name="noFault">
    /// The <see cref="NoFaultRow"/> row where the pass ran it: its request reads a buffer filled before it, with no
    /// fault left in the guest, yet its <c>x warm</c> is not 1.00x either (1.06x-1.62x on the development VM): a first
    /// request is slower than the next one on this machine even where no prefault is involved. Not a floor: it ran
    /// above prefault's in most passes (its buffer is fresh memory, faulted in on the row's clock).
    /// </param>
    private static IEnumerable<string> AgainstDemandFaults(ResultRow prefault, ResultRow none, ResultRow? noFault)
    {
        string limit = prefault.RatioToLimit is double ratio ? string.Create(CultureInfo.InvariantCulture, $", load {ratio:0.00}x disk limit") : string.Empty;
        string spread = prefault is { MinRatioToWarm: double low, MaxRatioToWarm: double high } && prefault.Repeat > 1
            ? $" ({ResultTable.Ratio(low)}-{ResultTable.Ratio(high)} over the repetitions)"
            : string.Empty;
        string reference = noFault is { RatioToWarm: double noFaultRatio }
            ? $"; {NoFaultRow} (no fault left in the guest): first request {ResultTable.Ratio(noFaultRatio)} warm" +
                (noFault is { MinRatioToWarm: double noFaultLow, MaxRatioToWarm: double noFaultHigh } && noFault.Repeat > 1
                    ? $" ({ResultTable.Ratio(noFaultLow)}-{ResultTable.Ratio(noFaultHigh)})"
                    : string.Empty)
            : string.Empty;
        yield return $"  prefault: first request {ResultTable.Ratio(prefault.RatioToWarm)} warm{spread}{limit}; " +
            $"demand faults: first request {ResultTable.Ratio(none.RatioToWarm)} warm{reference}";
        string sooner = prefault.TotalSeconds <= none.TotalSeconds
            ? $"{ResultTable.Ratio(none.TotalSeconds / prefault.TotalSeconds)} sooner"
            : $"{ResultTable.Ratio(prefault.TotalSeconds / none.TotalSeconds)} later";
        yield return $"  first request done {ResultTable.Seconds(prefault.TotalSeconds)} s after the start with the prefault ({sooner}), " +
            $"{ResultTable.Seconds(none.TotalSeconds)} s without";
    }

    /// <summary>
    /// "by load: prefault 0.660 s, 3rd of 9, beyond noise of the first, direct-io 0.567 s; others (x prefault's):
    /// direct-io 0.86x, prefault-touch 0.91x (noise), ..." in the order of their medians. A row in
    /// <paramref name="same"/> ran what prefault ran: it is marked "(same run)", and where it is the first, prefault is
    /// within noise of it whatever their min-max. Every other row is weighed against prefault's own min-max: the
    /// noise of two rows that ran the same code widens no comparison with a third (it could call a row that is
    /// faster than both "noise").
    /// </summary>
    private static string Compare(string by, ResultRow prefault, ResultRow[] strategies, ResultRow[] same, Func<ResultRow, Spread> measure)
    {
        Spread own = measure(prefault);
        ResultRow[] ranked = [.. strategies.Where(r => r == prefault || ColdStartStrategy.IsRankedRow(r.Strategy))];
        ResultRow[] others = [.. ranked.Where(r => r != prefault).OrderBy(r => measure(r).Median)];
        ResultRow[] beside = [.. strategies.Where(r => !ranked.Contains(r)).OrderBy(r => measure(r).Median)];
        string Each(ResultRow r)
        {
            Spread theirs = measure(r);
            string ratio = own.Median > 0 ? Number(theirs.Median / own.Median) + "x" : "-";
            string mark = same.Contains(r) ? " (same run)" : theirs.Overlaps(own) ? " (noise)" : string.Empty;
            return $"{r.Strategy} {ratio}{mark}";
        }

        string notRanked = beside.Length > 0 ? $"; not ranked: {string.Join(", ", beside.Select(Each))}" : string.Empty;
        if (others.Length == 0)
        {
            return $"  {by}: prefault {ResultTable.Seconds(own.Median)} s, alone in the ranking{notRanked}";
        }

        ResultRow first = others[0];
        Spread best = measure(first);
        int place = 1 + others.Count(r => measure(r).Median < own.Median);
        string standing = place == 1
            ? $"prefault {ResultTable.Seconds(own.Median)} s, first of {ranked.Length}"
            : $"prefault {ResultTable.Seconds(own.Median)} s, {Ordinal(place)} of {ranked.Length}, " +
                $"{(same.Contains(first) || own.Overlaps(best) ? "within" : "beyond")} noise of the first, {first.Strategy} {ResultTable.Seconds(best.Median)} s" +
                (same.Contains(first) ? ", which ran what prefault ran" : string.Empty);
        return $"  {by}: {standing}; others (x prefault's): {string.Join(", ", others.Select(Each))}{notRanked}";
    }

    /// <summary>
    /// "fastest way in (load): O_DIRECT, limit-direct-4 0.564 s; mmap: prefault-touch 0.612 s (1.09x); read(): ..."
    /// where rows of two mechanisms or more ran cold; a row whose O_DIRECT fell back to buffered reads counts as read().
    /// </summary>
    private static string? FastestWayIn(ResultRow[] coldRows)
    {
        var best = new Dictionary<string, ResultRow>();
        foreach (ResultRow row in coldRows)
        {
            string? mechanism = ColdStartStrategy.MechanismOf(row.Strategy);
            if (mechanism is null)
            {
                continue;
            }

            if (mechanism == ColdStartStrategy.Direct && row.Method is { } method && !method.Contains("O_DIRECT", StringComparison.Ordinal))
            {
                mechanism = ColdStartStrategy.Read;
            }

            if (!best.TryGetValue(mechanism, out ResultRow? held) || row.LoadSeconds < held.LoadSeconds)
            {
                best[mechanism] = row;
            }
        }

        if (best.Count < 2)
        {
            return null;
        }

        KeyValuePair<string, ResultRow>[] ranked = [.. best.OrderBy(static b => b.Value.LoadSeconds)];
        ResultRow fastest = ranked[0].Value;
        var fastestSpread = new Spread(fastest.LoadSeconds, fastest.MinLoadSeconds, fastest.MaxLoadSeconds);
        IEnumerable<string> rest = ranked.Skip(1).Select(b =>
        {
            var spread = new Spread(b.Value.LoadSeconds, b.Value.MinLoadSeconds, b.Value.MaxLoadSeconds);
            string ratio = fastest.LoadSeconds > 0 ? Number(b.Value.LoadSeconds / fastest.LoadSeconds) + "x" : "-";
            return $"{b.Key}: {b.Value.Strategy} {ResultTable.Seconds(b.Value.LoadSeconds)} s ({ratio}{(spread.Overlaps(fastestSpread) ? ", noise" : string.Empty)})";
        });
        return $"  fastest way in (load): {ranked[0].Key}, {fastest.Strategy} {ResultTable.Seconds(fastest.LoadSeconds)} s; {string.Join("; ", rest)}";
    }

    private static string Number(double ratio) => ratio.ToString(ratio >= 10 ? "0" : "0.00", CultureInfo.InvariantCulture);

    private static string Ordinal(int n) => n.ToString(CultureInfo.InvariantCulture) + ((n % 100) is 11 or 12 or 13 ? "th" : (n % 10) switch
    {
        1 => "st",
        2 => "nd",
        3 => "rd",
        _ => "th",
    });
}
