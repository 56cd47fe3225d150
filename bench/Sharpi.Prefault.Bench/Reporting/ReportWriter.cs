using System.Globalization;
using System.Text;
using System.Text.Json;

namespace Sharpi.Prefault.Bench;

/// <summary>Writes a run's results: the terminal table, and on request the JSON contract and a Markdown section for the docs.</summary>
internal static class ReportWriter
{
    internal static void WriteJson(string path, BenchReport report)
    {
        CreateParent(path);
        File.WriteAllText(path, JsonSerializer.Serialize(report, BenchJsonContext.Default.BenchReport) + "\n");
    }

    /// <summary>A Markdown section: the machine, the table, and a Mermaid chart of the time to the first request.</summary>
    internal static void WriteMarkdown(string path, BenchReport report, string title)
    {
        var md = new StringBuilder();
        md.AppendLine(CultureInfo.InvariantCulture, $"### {title}");
        md.AppendLine();
        if (report.Headline is { } headline)
        {
            md.AppendLine(CultureInfo.InvariantCulture, $"**{headline}**");
            md.AppendLine();
        }

        md.AppendLine(CultureInfo.InvariantCulture, $"- Machine: {report.Machine.Describe()}");
        md.AppendLine(CultureInfo.InvariantCulture, $"- Storage: {report.Machine.DescribeStorage()}");
        md.AppendLine(CultureInfo.InvariantCulture, $"- Host: {report.Machine.DescribeHost()}");
        if (report.Request is { } request)
        {
            md.AppendLine(CultureInfo.InvariantCulture,
                $"- Request: {request}; warm: {(report.WarmRequestSeconds is double warm ? ResultTable.Seconds(warm) + " s" : "not measured")}");
        }

        if (report.Verdict is { } verdict)
        {
            // A verdict of several lines (one heading line per pass, its findings indented under it) stays one list.
            foreach (string line in verdict.Split(Environment.NewLine))
            {
                md.AppendLine(line.StartsWith(' ') ? "  -" + line[1..] : "- " + line);
            }
        }

        foreach (string bug in report.Bugs)
        {
            md.AppendLine(CultureInfo.InvariantCulture, $"- **{bug}**");
        }

        md.AppendLine(CultureInfo.InvariantCulture, $"- File: {Sizes.Format(report.Bytes)} (`{Path.GetFileName(report.File)}`), page size {report.PageSize} B");
        md.AppendLine(CultureInfo.InvariantCulture, $"- Command: `{report.Command}`; medians of {report.Repeat} repetitions, {report.GeneratedAt:yyyy-MM-dd HH:mm} UTC");
        foreach (string note in report.Notes)
        {
            md.AppendLine(CultureInfo.InvariantCulture, $"- {note}");
        }

        md.AppendLine();
        md.Append(ResultTable.Render(report.Results, markdown: true));
        md.AppendLine();
        md.Append(Chart(report, title));
        CreateParent(path);
        File.WriteAllText(path, md.ToString());
    }

    /// <summary>
    /// A Mermaid xychart-beta bar chart (GitHub renders it): time to first request per row, cold bars behind warm
    /// ones (engine: prepacking off behind on); of a run over several passes (read_ahead_kb values, devices), the first pass's rows.
    /// </summary>
    private static string Chart(BenchReport report, string title)
    {
        RunPass pass = report.Results.Count == 0 ? default : report.Results[0].Pass;
        ResultRow[] results = [.. report.Results.Where(r => r.Pass == pass)];
        if (pass != default && report.Results.Any(r => r.Pass != pass))
        {
            title += ", " + pass.Describe();
        }

        // A series per cache state; of engine rows, per prepacking setting, with the limit row (which has none) in each.
        bool engine = results.Any(static r => r.Prepacking is not null);
        string[] names = [.. results.Select(static r => r.Strategy).Distinct()];
        string[] series = [.. results.Where(r => !engine || r.Prepacking is not null).Select(Series).Distinct()];
        double max = results.Length == 0 ? 1 : results.Max(static r => r.TotalSeconds);
        var chart = new StringBuilder();
        chart.AppendLine("```mermaid");
        chart.AppendLine("xychart-beta");
        string legend = string.Join(" vs ", series);
        chart.AppendLine(CultureInfo.InvariantCulture, $"    title \"{title}: time to first request (s), {legend}{(series.Length > 1 ? ", second series in front" : string.Empty)}\"");
        chart.AppendLine(CultureInfo.InvariantCulture, $"    x-axis [{string.Join(", ", names.Select(static n => $"\"{n}\""))}]");
        chart.AppendLine(CultureInfo.InvariantCulture, $"    y-axis \"seconds\" 0 --> {Math.Ceiling(max * 10) / 10:0.0}");
        foreach (string one in series)
        {
            IEnumerable<string> values = names.Select(n => results.FirstOrDefault(r => r.Strategy == n && (Series(r) == one || (engine && r.Prepacking is null)))?.TotalSeconds ?? 0)
                .Select(static v => v.ToString("0.000", CultureInfo.InvariantCulture));
            chart.AppendLine(CultureInfo.InvariantCulture, $"    bar [{string.Join(", ", values)}]");
        }

        chart.AppendLine("```");
        return chart.ToString();
    }

    private static string Series(ResultRow row) => row.Prepacking is { } prepacking ? $"prepacking {prepacking}" : row.Cache;

    private static void CreateParent(string path)
    {
        string? directory = Path.GetDirectoryName(Path.GetFullPath(path));
        if (directory is not null)
        {
            Directory.CreateDirectory(directory);
        }
    }
}
