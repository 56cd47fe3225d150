using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.Versioning;
using System.Text;
using System.Text.Json;
using Sharpi.Prefault.Samples.LLamaSharp;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// <c>llamasharp</c>: LLamaSharp 0.30.0 (CPU backend) as a .NET host runs it, over a llama GGUF of Q4_0 weights in
/// llama-2-7B-shaped blocks that the command writes itself (<see cref="TinyLlamaModel"/>). Every row runs in a process
/// of its own (VmHWM is the row's), cold and warm, once per read-ahead value: LLamaSharp's load modes alone and with
/// Sharpi.Prefault.LLamaSharp. Columns: load, ready (init + load + first token), first and second token, peak RSS
/// (VmHWM), RSS and RssFile after, what was given back and what it cost, x read, and whether the tokens equal read's.
/// </summary>
internal sealed class LLamaSharpCommand
{
    private const double Mi = 1 << 20;
    private static readonly JsonSerializerOptions Indented = new() { WriteIndented = true };

    private readonly Option<int> _layers = BenchCommand.Defaulted("--layers", 10,
        "Blocks of llama-2-7B's shape (4096 wide, 11008 feed-forward) in Q4_0: 109 MiB each; 10 make a 1.07 GiB model.");

    private readonly Option<string> _rows = BenchCommand.Defaulted("--rows", string.Join(',', LLamaSharpRow.All), $"Comma-separated rows: {string.Join(", ", LLamaSharpRow.All)}.");

    private readonly Option<string> _cache = BenchCommand.Defaulted("--cache", "cold,warm", "Comma-separated page-cache states each row starts from: cold (evicted), warm (cached).");

    private readonly Option<int> _repeat = BenchCommand.Defaulted("--repeat", 3, "Repetitions of every row (medians are reported).");

    private readonly Option<int> _initMs = BenchCommand.Defaulted("--init-ms", 200,
        "The host's other start-up work before the load: busy CPU on the loading thread for this many milliseconds.");

    private readonly Option<int> _tokens = BenchCommand.Defaulted("--tokens", 8, "Tokens decoded greedily per row (the first two are timed; all are compared with read's).");

    private readonly Option<string> _dir = BenchCommand.Defaulted("--dir", WeightsFile.DefaultDirectory, "Folder of the generated model.");

    private readonly Option<string?> _markdown = new("--markdown") { Description = "Also write the report as Markdown to this file." };

    private readonly Option<string?> _json = new("--json") { Description = "Also write every row's figures as JSON to this file." };

    private readonly Option<string?> _readAhead = ReadAheadPasses.CreateOption();

    // Only its --free-page-reporting option: each row's process frees 1-2 GiB, which a reporting VM hands to the host.
    private readonly CommonOptions _common = new();

    internal static Command Create()
    {
        var self = new LLamaSharpCommand();
        var command = new Command("llamasharp",
            "LLamaSharp (llama.cpp, CPU) loading a 1 GiB Q4_0 llama GGUF per load mode, alone and with Sharpi.Prefault.LLamaSharp: load, ready, tokens, peak RSS, RSS after; a process per row.");
        self._common.FreePageReporting.AcceptOnlyFromAmong("suspend", "keep");
        return BenchCommand.Configure(command, self.Invoke, [self._layers, self._rows, self._cache, self._repeat, self._initMs, self._tokens, self._dir, self._readAhead,
            self._common.FreePageReporting, self._markdown, self._json]);
    }

    /// <summary>The hidden command a row runs in: <c>llamasharp-row ROW MODEL INIT_MS TOKENS</c>.</summary>
    internal static Command CreateRow()
    {
        var argument = new Argument<string[]>("row") { Arity = ArgumentArity.OneOrMore };
        var command = new Command("llamasharp-row", "One row of llamasharp, in its own process (used by llamasharp).") { Hidden = true };
        command.Arguments.Add(argument);
        command.SetAction(parse => LLamaSharpRow.RunChild(parse.GetValue(argument)!));
        return command;
    }

    private int Invoke(ParseResult parse)
    {
        if (!BenchCommand.RunsHere("llamasharp", "it evicts the page cache and reads /proc."))
        {
            return 2;
        }

        using var progress = new ProgressLine();
        try
        {
            string[] rows = CommaList.Parse(parse.GetValue(_rows)!, static r => LLamaSharpRow.All.Contains(r) ? r : throw new BenchException($"--rows: unknown row '{r}'."));
            CacheState[] caches = CacheControl.Parse(parse.GetValue(_cache), "cold, warm or cold,warm");
            int repeat = Math.Max(1, parse.GetValue(_repeat));
            int initMs = Math.Max(0, parse.GetValue(_initMs));
            int tokens = Math.Max(2, parse.GetValue(_tokens));
            WeightsFile model = Model(parse.GetValue(_dir)!, parse.GetValue(_layers), progress);
            string load = LoadAverage();
            var notes = new List<string>();
            var results = new List<(int? ReadAheadKb, CacheState Cache, LLamaRowResult Row)>();
            using FreePageReporting.Suspension? reporting = _common.SuspendPageReporting(parse, notes, progress);
            foreach (int? readAheadKb in ReadAheadPasses.Each(model.Path, ReadAheadPasses.Parse(parse.GetValue(_readAhead)), notes, progress))
            {
                for (int r = 0; r < repeat; r++)
                {
                    foreach (CacheState cache in caches)
                    {
                        for (int i = 0; i < rows.Length; i++)
                        {
                            string row = rows[(i + r) % rows.Length]; // rotated, so drift does not favour one row
                            progress.Begin($"{(readAheadKb is int kb ? $"read_ahead_kb {kb}, " : string.Empty)}repetition {r + 1}/{repeat}, {CacheControl.Name(cache)}, {row}");
                            CacheControl.Establish(model, cache);
                            results.Add((readAheadKb, cache, RunRow(row, model.Path, initMs, tokens)));
                        }
                    }
                }
            }

            progress.Clear();
            string report = Report(parse, model, rows, caches, repeat, initMs, tokens, results, notes, load, LoadAverage());
            Console.Out.Write(report);
            if (parse.GetValue(_markdown) is { } markdown)
            {
                File.WriteAllText(markdown, report);
            }

            if (parse.GetValue(_json) is { } json)
            {
                File.WriteAllText(json, JsonSerializer.Serialize(results.Select(static r => new { r.ReadAheadKb, Cache = CacheControl.Name(r.Cache), r.Row }),
                    Indented));
            }

            return 0;
        }
        catch (BenchException e)
        {
            progress.Clear();
            Console.Error.WriteLine($"error: {e.Message}");
            return 1;
        }
    }

    /// <summary>The model, written on first use and reused while its size matches.</summary>
    private static WeightsFile Model(string directory, int layers, ProgressLine progress)
    {
        Directory.CreateDirectory(directory);
        var shape = TinyLlamaModel.Shape.Llama2_7B(Math.Max(1, layers));
        string path = Path.Combine(directory, $"llama-q4_0-{shape.Layers}x4096.gguf");
        if (!File.Exists(path) || new FileInfo(path).Length < shape.LayerBytes(TinyLlamaModel.WeightType.Q4_0) * shape.Layers)
        {
            progress.Begin($"writing {path}");
            TinyLlamaModel.Write(path, shape, TinyLlamaModel.WeightType.Q4_0);
        }

        return new WeightsFile(path, new FileInfo(path).Length, Generated: true);
    }

    private static LLamaRowResult RunRow(string row, string model, int initMs, int tokens)
    {
        var start = new ProcessStartInfo(Environment.ProcessPath!)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        // The row runs as a host's process does: the bench's own runtimeconfig turns quick JIT off (for its timed loops),
        // which would make every first call of LLamaSharp and the library a fully optimised compile.
        start.Environment["DOTNET_TC_QuickJit"] = "1";
        if (Path.GetFileNameWithoutExtension(Environment.ProcessPath!) == "dotnet")
        {
            start.ArgumentList.Add(typeof(LLamaSharpCommand).Assembly.Location);
        }

        foreach (string a in (string[])["llamasharp-row", row, model, initMs.ToString(CultureInfo.InvariantCulture), tokens.ToString(CultureInfo.InvariantCulture)])
        {
            start.ArgumentList.Add(a);
        }

        using Process child = Process.Start(start) ?? throw new BenchException("could not start a row's process");
        Task<string> error = child.StandardError.ReadToEndAsync();
        string output = child.StandardOutput.ReadToEnd();
        child.WaitForExit();
        string? line = output.Split('\n').LastOrDefault(static l => l.StartsWith('{'));
        if (child.ExitCode != 0 || line is null)
        {
            throw new BenchException($"row {row} exited with {child.ExitCode}: {error.Result}{output}");
        }

        return JsonSerializer.Deserialize<LLamaRowResult>(line) ?? throw new BenchException($"row {row} printed no result");
    }

    private static string Report(ParseResult parse, WeightsFile model, string[] rows, CacheState[] caches, int repeat, int initMs, int tokens,
        List<(int? ReadAheadKb, CacheState Cache, LLamaRowResult Row)> results, List<string> notes, string loadBefore, string loadAfter)
    {
        var text = new StringBuilder();
        var inv = CultureInfo.InvariantCulture;
        text.AppendLine(inv, $"# llamasharp: LLamaSharp 0.30.0 (CPU), {Sizes.Format(model.Length)} Q4_0 llama GGUF, {initMs} ms init, 1 thread, medians of {repeat}");
        text.AppendLine();
        text.AppendLine(inv, $"Command: `{CommonOptions.CommandLine(parse, "llamasharp")}`");
        text.AppendLine(inv, $"Machine: {MachineInfo.Current(model.Path).Describe()}; load average {loadBefore} before, {loadAfter} after.");
        text.AppendLine();
        var checks = new List<string>();
        foreach (IGrouping<(int? ReadAheadKb, CacheState Cache), (int? ReadAheadKb, CacheState Cache, LLamaRowResult Row)> pass in
                 results.GroupBy(static r => (r.ReadAheadKb, r.Cache)))
        {
            text.AppendLine(inv, $"## {CacheControl.Name(pass.Key.Cache)}{(pass.Key.ReadAheadKb is int kb ? $", read_ahead_kb {kb}" : string.Empty)}");
            text.AppendLine();
            text.AppendLine("| row | load s | ready s | first ms | second ms | peak RSS MiB | RSS after MiB | RssFile MiB | given back MiB (during load) | release ms | locked MiB | load x read | ready x read | peak x read | RSS x read | tokens |");
            text.AppendLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
            Dictionary<string, LLamaRowResult[]> byRow = pass.GroupBy(static r => r.Row.Row).ToDictionary(static g => g.Key, static g => g.Select(static r => r.Row).ToArray());
            LLamaRowResult[]? read = byRow.GetValueOrDefault(LLamaSharpRow.Read);
            double M(LLamaRowResult[] runs, Func<LLamaRowResult, double> f) => Median(runs.Select(f));
            foreach (string row in rows)
            {
                if (!byRow.TryGetValue(row, out LLamaRowResult[]? runs))
                {
                    continue;
                }

                string Ratio(Func<LLamaRowResult, double> f) => read is null ? "-" : (M(runs, f) / M(read, f)).ToString("0.00", inv) + "x";
                bool same = read is null || runs.All(r => r.Tokens.SequenceEqual(read[0].Tokens));
                text.AppendLine(inv,
                    $"| {row} | {M(runs, static r => r.LoadSeconds):0.000} | {M(runs, static r => r.ReadySeconds):0.000} | {M(runs, static r => r.FirstTokenSeconds) * 1000:0} | " +
                    $"{M(runs, static r => r.SecondTokenSeconds) * 1000:0} | {M(runs, static r => r.PeakRssBytes) / Mi:0} | {M(runs, static r => r.RssAfterBytes) / Mi:0} | " +
                    $"{M(runs, static r => r.RssFileAfterBytes) / Mi:0} | {M(runs, static r => r.GivenBackBytes) / Mi:0} ({M(runs, static r => r.GivenBackDuringLoadBytes) / Mi:0}) | " +
                    $"{M(runs, static r => r.ReleaseSeconds) * 1000:0.0} | {M(runs, static r => r.LockedBytes) / Mi:0.0} | {Ratio(static r => r.LoadSeconds)} | {Ratio(static r => r.ReadySeconds)} | " +
                    $"{Ratio(static r => r.PeakRssBytes)} | {Ratio(static r => r.RssAfterBytes)} | {(same ? "= read" : "DIFFER")} |");
            }

            text.AppendLine();
            if (read is not null && byRow.TryGetValue(LLamaSharpRow.MmapReclaimDuring, out LLamaRowResult[]? during))
            {
                checks.Add(Check(pass.Key, "mmap+reclaim-during peak RSS <= 1.15x read's", M(during, static r => r.PeakRssBytes) / M(read, static r => r.PeakRssBytes), 1.15));
                checks.Add(Check(pass.Key, "mmap+reclaim-during RSS after <= 1.05x read's", M(during, static r => r.RssAfterBytes) / M(read, static r => r.RssAfterBytes), 1.05));
                checks.Add(Check(pass.Key, "mmap+reclaim-during load <= read's", M(during, static r => r.LoadSeconds) / M(read, static r => r.LoadSeconds), 1.0));
                checks.Add($"{Pass(pass.Key)}: mmap+reclaim-during tokens identical to read's: {(during.All(r => r.Tokens.SequenceEqual(read[0].Tokens)) ? "yes" : "NO")}");
                if (byRow.TryGetValue(LLamaSharpRow.Mmap, out LLamaRowResult[]? mmap))
                {
                    checks.Add(string.Create(inv, $"{Pass(pass.Key)}: giving back {M(during, static r => r.GivenBackBytes) / Mi:0} MiB during the load cost {M(during, static r => r.ReleaseSeconds) * 1000:0.0} ms " +
                        $"({M(during, static r => r.ReleaseSeconds) / M(mmap, static r => r.LoadSeconds) * 100:0.0}% of mmap's load)"));
                }
            }

            if (read is not null && byRow.TryGetValue(LLamaSharpRow.ReadWarm, out LLamaRowResult[]? warm))
            {
                checks.Add(Check(pass.Key, "read+warm ready <= read's", M(warm, static r => r.ReadySeconds) / M(read, static r => r.ReadySeconds), 1.0));
            }
        }

        text.AppendLine("## Checks (the issue's \"done when\")");
        text.AppendLine();
        foreach (string check in checks)
        {
            text.AppendLine("- " + check);
        }

        text.AppendLine();
        text.AppendLine("## Rows");
        text.AppendLine();
        foreach (string d in LLamaSharpRow.Descriptions)
        {
            text.AppendLine("- " + d);
        }

        text.AppendLine(inv, $"- Every row: its own process; the native library loaded before the clock; cold: the model evicted (PageCache.Evict) before the process starts, warm: cached. " +
            $"ready = from the row's start (its warm-up, {initMs} ms of busy init on the loading thread, the load) to the end of the first token's decode; first/second: " +
            $"the first two decodes (BOS, then the token it gave); {tokens} tokens decoded greedily, compared with read's. peak RSS: VmHWM of the row's process; RSS/RssFile after: after the tokens. " +
            $"Rows run with quick JIT on (DOTNET_TC_QuickJit=1), as a host's process does.");
        foreach (string note in notes)
        {
            text.AppendLine("- " + note);
        }

        return text.ToString();
    }

    private static string Check((int? ReadAheadKb, CacheState Cache) pass, string what, double ratio, double limit) =>
        string.Create(CultureInfo.InvariantCulture, $"{Pass(pass)}: {what}: {ratio:0.00}x {(ratio <= limit ? "PASS" : "FAIL")}");

    private static string Pass((int? ReadAheadKb, CacheState Cache) pass) =>
        CacheControl.Name(pass.Cache) + (pass.ReadAheadKb is int kb ? string.Create(CultureInfo.InvariantCulture, $", read_ahead_kb {kb}") : string.Empty);

    private static double Median(IEnumerable<double> values)
    {
        double[] sorted = [.. values.Order()];
        return sorted.Length == 0 ? double.NaN : sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
    }

    private static string LoadAverage() => File.Exists("/proc/loadavg") ? string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : "n/a";
}
