using System.Globalization;
using System.Text;

namespace Sharpi.Prefault.Bench;

/// <summary>The results as an aligned terminal table or a Markdown table, from the same cells.</summary>
internal static class ResultTable
{
    private static readonly string[] Headers =
        ["strategy", "cache", "strategy s", "first pass s", "total s", "load s", "min-max s", "GiB/s", "disk GiB/s", "req KiB", "x limit", "x warm", "faults minor/major", "first pass faults", "2M-mapped", "cached before", "cached after", "settle s", "method"];

    /// <summary>The coldstart columns that fit 100 characters (without <c>--wide</c>); <see cref="Headers"/> are all of them.</summary>
    private static readonly string[] ColdStartHeaders =
        ["strategy", "cache", "load s", "first request s", "to first done s", "x warm", "x limit"];

    private static readonly string[] OverlapHeaders =
        ["scenario", "cache", "init s", "init waited s", "prefault s", "first pass s", "first layer done s", "time to first request s", "min-max s", "sweep GiB/s", "minor faults", "major faults", "cached before", "cached after", "method"];

    /// <summary>The overlap columns that fit 100 characters (without <c>--wide</c>); every row is cold, so no cache column.</summary>
    private static readonly string[] OverlapCompactHeaders =
        ["scenario", "init s", "prefault s", "first pass s", "first layer done s", "to first request s"];

    /// <summary>The engine command's columns that fit 100 characters; <see cref="EngineWideHeaders"/> add the rest.</summary>
    private static readonly string[] EngineHeaders =
        ["row", "prepacking", "create s", "first s", "second s", "x warm", "to-first s", "x limit"];

    private static readonly string[] EngineWideHeaders =
        [.. EngineHeaders, "init s", "prefault s", "load s", "min-max s", "disk GiB/s", "first faults minor/major", "cached before", "cached after", "method"];

    /// <summary>
    /// The table; a run over several passes (read_ahead_kb values, <c>--read-ahead-kb</c>; devices, <c>--device</c>)
    /// gets one table per pass, each under a heading. <paramref name="wide"/>: every column of the rows (otherwise the ones that fit 100 characters).
    /// </summary>
    internal static string Render(IReadOnlyList<ResultRow> rows, bool markdown, bool wide = true)
    {
        RunPass[] passes = [.. rows.Select(static r => r.Pass).Distinct()];
        if (passes.Length <= 1)
        {
            return RenderOne(rows, markdown, wide);
        }

        var text = new StringBuilder();
        foreach (RunPass pass in passes)
        {
            string heading = pass.Describe(unchanged: "read_ahead_kb unchanged");
            text.AppendLine(markdown ? $"#### {heading}" : $"{heading}:");
            if (markdown)
            {
                text.AppendLine();
            }

            text.Append(RenderOne([.. rows.Where(r => r.Pass == pass)], markdown, wide));
            text.AppendLine();
        }

        return text.ToString();
    }

    private static string RenderOne(IReadOnlyList<ResultRow> rows, bool markdown, bool wide)
    {
        bool engine = rows.Any(static r => r.CreateSeconds is not null);
        bool overlap = !engine && rows.Count > 0 && rows[0].InitSeconds is not null;
        string[] headers = engine ? (wide ? EngineWideHeaders : EngineHeaders) : overlap ? (wide ? OverlapHeaders : OverlapCompactHeaders) : wide ? Headers : ColdStartHeaders;
        bool[] left = [.. headers.Select(static (h, i) => i < 2 || h == "method")];
        var cells = new List<string[]>(rows.Count);
        foreach (ResultRow row in rows)
        {
            cells.Add(engine ? EngineCells(row)[..headers.Length] : overlap ? (wide ? OverlapCells(row) : OverlapCompactCells(row)) : wide ? Cells(row) : ColdStartCells(row));
        }

        var widths = new int[headers.Length];
        for (int i = 0; i < headers.Length; i++)
        {
            widths[i] = Math.Max(headers[i].Length, cells.Count == 0 ? 0 : cells.Max(c => c[i].Length));
        }

        var text = new StringBuilder();
        AppendLine(text, headers, widths, left, markdown);
        if (markdown)
        {
            text.Append('|');
            for (int i = 0; i < headers.Length; i++)
            {
                text.Append(left[i] ? " :--- |" : " ---: |");
            }

            text.AppendLine();
        }
        else
        {
            AppendLine(text, [.. widths.Select(w => new string('-', w))], widths, left, markdown: false);
        }

        foreach (string[] row in cells)
        {
            AppendLine(text, row, widths, left, markdown);
        }

        return text.ToString();
    }

    private static string[] Cells(ResultRow r) =>
    [
        r.Strategy, r.Cache, Seconds(r.Seconds), Request(r, r.FirstPassSeconds), Request(r, r.TotalSeconds), Seconds(r.LoadSeconds),
        $"{Seconds(r.MinTotalSeconds)}-{Seconds(r.MaxTotalSeconds)}", Number(r.GibPerSecond, "0.00"),
        r.StorageBytes > 0 ? Number(r.StorageGibPerSecond, "0.00") : "-", r.AverageReadRequestKb is double kb ? Number(kb, "0") : "-",
        r.RatioToLimit is double ratio ? Number(ratio, "0.00") : "-", Ratio(r.RatioToWarm),
        $"{Count(r.MinorFaults)}/{Count(r.MajorFaults)}",
        $"{Count(r.FirstPassMinorFaults)}/{Count(r.FirstPassMajorFaults)}", r.PmdMappedPercent is double pmd ? Percent(pmd) : "-",
        Percent(r.ResidentPercentBefore), Percent(r.ResidentPercentAfter), Optional(r.SettleSeconds), r.Method ?? string.Empty,
    ];

    /// <summary>A coldstart row's compact cells: the load, the first request, the time until it was done, and the two ratios.</summary>
    private static string[] ColdStartCells(ResultRow r) =>
    [
        r.Strategy, r.Cache, Seconds(r.LoadSeconds), Request(r, r.FirstPassSeconds), Request(r, r.TotalSeconds), Ratio(r.RatioToWarm),
        r.RatioToLimit is double ratio ? Number(ratio, "0.00") : "-",
    ];

    private static string[] OverlapCells(ResultRow r) =>
    [
        r.Strategy, r.Cache, Seconds(r.InitSeconds ?? 0), Optional(r.InitWaitSeconds), Seconds(r.Seconds), Seconds(r.FirstPassSeconds),
        r.FirstLayerSeconds is double firstLayer ? Seconds(firstLayer) : "-", Seconds(r.TotalSeconds),
        $"{Seconds(r.MinTotalSeconds)}-{Seconds(r.MaxTotalSeconds)}", r.SweepGibPerSecond is double sweep ? Number(sweep, "0.00") : "-",
        Count(r.MinorFaults), Count(r.MajorFaults),
        Percent(r.ResidentPercentBefore), Percent(r.ResidentPercentAfter), r.Method ?? string.Empty,
    ];

    /// <summary>An overlap row's compact cells: the init, the prefault's unhidden time, the request, and when it was done.</summary>
    private static string[] OverlapCompactCells(ResultRow r) =>
    [
        r.Strategy, Seconds(r.InitSeconds ?? 0), Seconds(r.Seconds), Seconds(r.FirstPassSeconds),
        r.FirstLayerSeconds is double firstLayer ? Seconds(firstLayer) : "-", Seconds(r.TotalSeconds),
    ];

    /// <summary>
    /// An engine row (its own columns first, the wide ones after); the limit row has no session, so its read of the
    /// whole file stands in its to-first column.
    /// </summary>
    private static string[] EngineCells(ResultRow r) =>
    [
        r.Strategy, r.Prepacking ?? "-", Optional(r.CreateSeconds), r.CreateSeconds is null ? "-" : Seconds(r.FirstPassSeconds),
        Optional(r.WarmPassSeconds), Ratio(r.RatioToWarm), Seconds(r.TotalSeconds), r.RatioToLimit is double ratio ? Number(ratio, "0.00") : "-",
        Optional(r.InitSeconds), r.CreateSeconds is null ? "-" : Seconds(r.Seconds), Seconds(r.LoadSeconds),
        $"{Seconds(r.MinTotalSeconds)}-{Seconds(r.MaxTotalSeconds)}", r.StorageBytes > 0 ? Number(r.StorageGibPerSecond, "0.00") : "-",
        $"{Count(r.FirstPassMinorFaults)}/{Count(r.FirstPassMajorFaults)}", Percent(r.ResidentPercentBefore), Percent(r.ResidentPercentAfter), r.Method ?? string.Empty,
    ];

    private static void AppendLine(StringBuilder text, string[] cells, int[] widths, bool[] left, bool markdown)
    {
        for (int i = 0; i < cells.Length; i++)
        {
            string cell = left[i] ? cells[i].PadRight(widths[i]) : cells[i].PadLeft(widths[i]);
            text.Append(markdown ? (i == 0 ? "| " : " | ") : (i == 0 ? string.Empty : "  ")).Append(cell);
        }

        if (markdown)
        {
            text.AppendLine(" |");
        }
        else
        {
            // A left-aligned last column would pad every line to its widest cell.
            while (text.Length > 0 && text[^1] == ' ')
            {
                text.Length--;
            }

            text.AppendLine();
        }
    }

    /// <summary>Seconds with the precision that matters: 1.23, 0.123, 0.0021.</summary>
    internal static string Seconds(double seconds) => Number(seconds, seconds >= 10 ? "0.0" : seconds >= 1 ? "0.00" : seconds >= 0.01 ? "0.000" : "0.0000");

    /// <summary>A ratio as "1.05x" or "31x"; "-" where there is none.</summary>
    internal static string Ratio(double? ratio) => ratio is double r ? Number(r, r >= 10 ? "0" : "0.00") + "x" : "-";

    /// <summary>A time that includes the row's request: "-" for a fresh-process row, which runs none.</summary>
    private static string Request(ResultRow r, double seconds) => r.Host is null ? Seconds(seconds) : "-";

    private static string Optional(double? seconds) => seconds is double s ? Seconds(s) : "-";

    private static string Number(double value, string format) => value.ToString(format, CultureInfo.InvariantCulture);

    private static string Count(long value) => value.ToString("N0", CultureInfo.InvariantCulture);

    private static string Percent(double value) => Number(value, "0.0") + "%";
}
