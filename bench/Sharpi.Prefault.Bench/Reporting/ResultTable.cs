using System.Globalization;
using System.Text;

namespace Sharpi.Prefault.Bench;

/// <summary>The results as an aligned terminal table or a Markdown table, from the same cells.</summary>
internal static class ResultTable
{
    private static readonly string[] Headers =
        ["strategy", "cache", "strategy s", "first pass s", "total s", "load s", "min-max s", "GiB/s", "disk GiB/s", "req KiB", "x limit", "x warm", "faults minor/major", "first pass faults", "2M-mapped", "cached before", "cached after", "method"];

    private static readonly string[] OverlapHeaders =
        ["scenario", "cache", "init s", "prefault s", "first pass s", "first layer done s", "time to first request s", "min-max s", "sweep GiB/s", "minor faults", "major faults", "cached before", "cached after", "method"];

    /// <summary>
    /// The table; a run over several read_ahead_kb values (<c>--read-ahead-kb</c>) gets one table per value, each
    /// under a heading, with the same column widths.
    /// </summary>
    internal static string Render(IReadOnlyList<ResultRow> rows, bool markdown)
    {
        int?[] passes = [.. rows.Select(static r => r.ReadAheadKb).Distinct()];
        if (passes.Length <= 1)
        {
            return RenderOne(rows, markdown);
        }

        var text = new StringBuilder();
        foreach (int? pass in passes)
        {
            string heading = pass is int kb ? $"read_ahead_kb {kb}" : "read_ahead_kb unchanged";
            text.AppendLine(markdown ? $"#### {heading}" : $"{heading}:");
            if (markdown)
            {
                text.AppendLine();
            }

            text.Append(RenderOne([.. rows.Where(r => r.ReadAheadKb == pass)], markdown));
            text.AppendLine();
        }

        return text.ToString();
    }

    private static string RenderOne(IReadOnlyList<ResultRow> rows, bool markdown)
    {
        bool overlap = rows.Count > 0 && rows[0].InitSeconds is not null;
        string[] headers = overlap ? OverlapHeaders : Headers;
        var cells = new List<string[]>(rows.Count);
        foreach (ResultRow row in rows)
        {
            cells.Add(overlap ? OverlapCells(row) : Cells(row));
        }

        var widths = new int[headers.Length];
        for (int i = 0; i < headers.Length; i++)
        {
            widths[i] = Math.Max(headers[i].Length, cells.Count == 0 ? 0 : cells.Max(c => c[i].Length));
        }

        var text = new StringBuilder();
        AppendLine(text, headers, widths, markdown);
        if (markdown)
        {
            text.Append('|');
            for (int i = 0; i < headers.Length; i++)
            {
                text.Append(i < 2 || i == headers.Length - 1 ? " :--- |" : " ---: |");
            }

            text.AppendLine();
        }
        else
        {
            AppendLine(text, [.. widths.Select(w => new string('-', w))], widths, markdown: false);
        }

        foreach (string[] row in cells)
        {
            AppendLine(text, row, widths, markdown);
        }

        return text.ToString();
    }

    private static string[] Cells(ResultRow r) =>
    [
        r.Strategy, r.Cache, Seconds(r.Seconds), Seconds(r.FirstPassSeconds), Seconds(r.TotalSeconds), Seconds(r.LoadSeconds),
        $"{Seconds(r.MinTotalSeconds)}-{Seconds(r.MaxTotalSeconds)}", Number(r.GibPerSecond, "0.00"),
        r.StorageBytes > 0 ? Number(r.StorageGibPerSecond, "0.00") : "-", r.AverageReadRequestKb is double kb ? Number(kb, "0") : "-",
        r.RatioToLimit is double ratio ? Number(ratio, "0.00") : "-", r.RatioToWarm is double warm ? Number(warm, warm >= 10 ? "0" : "0.00") + "x" : "-",
        $"{Count(r.MinorFaults)}/{Count(r.MajorFaults)}",
        $"{Count(r.FirstPassMinorFaults)}/{Count(r.FirstPassMajorFaults)}", r.PmdMappedPercent is double pmd ? Percent(pmd) : "-",
        Percent(r.ResidentPercentBefore), Percent(r.ResidentPercentAfter), r.Method ?? string.Empty,
    ];

    private static string[] OverlapCells(ResultRow r) =>
    [
        r.Strategy, r.Cache, Seconds(r.InitSeconds ?? 0), Seconds(r.Seconds), Seconds(r.FirstPassSeconds),
        r.FirstLayerSeconds is double firstLayer ? Seconds(firstLayer) : "-", Seconds(r.TotalSeconds),
        $"{Seconds(r.MinTotalSeconds)}-{Seconds(r.MaxTotalSeconds)}", r.SweepGibPerSecond is double sweep ? Number(sweep, "0.00") : "-",
        Count(r.MinorFaults), Count(r.MajorFaults),
        Percent(r.ResidentPercentBefore), Percent(r.ResidentPercentAfter), r.Method ?? string.Empty,
    ];

    private static void AppendLine(StringBuilder text, string[] cells, int[] widths, bool markdown)
    {
        for (int i = 0; i < cells.Length; i++)
        {
            bool left = i < 2 || i == cells.Length - 1;
            string cell = left ? cells[i].PadRight(widths[i]) : cells[i].PadLeft(widths[i]);
            text.Append(markdown ? (i == 0 ? "| " : " | ") : (i == 0 ? string.Empty : "  ")).Append(cell);
        }

        text.AppendLine(markdown ? " |" : string.Empty);
    }

    /// <summary>Seconds with the precision that matters: 1.23, 0.123, 0.0021.</summary>
    internal static string Seconds(double seconds) => Number(seconds, seconds >= 10 ? "0.0" : seconds >= 1 ? "0.00" : seconds >= 0.01 ? "0.000" : "0.0000");

    private static string Number(double value, string format) => value.ToString(format, CultureInfo.InvariantCulture);

    private static string Count(long value) => value.ToString("N0", CultureInfo.InvariantCulture);

    private static string Percent(double value) => Number(value, "0.0") + "%";
}
