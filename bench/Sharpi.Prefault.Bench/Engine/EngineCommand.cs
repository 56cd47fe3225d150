using System.CommandLine;
using System.Runtime.Versioning;
using Microsoft.ML.OnnxRuntime;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// <c>engine</c>: the real engine. ONNX Runtime (CPU) loads a model whose weights are cold; per row the prefault runs
/// not at all, after the session is created (over the engine's own mappings, <see cref="NativeMappings.OfFile"/>),
/// before it (over the library's own <see cref="MappedModel"/>), or in the background during the engine's init; with
/// prepacking off (the engine maps the weights) and on (it copies them at creation). Reports the session's creation,
/// its first and second inference and the time to the first, against the limit readers of <c>coldstart</c>, and
/// checks that every row's outputs are bit-identical to the <c>none</c> row's.
/// </summary>
internal sealed class EngineCommand
{
    private readonly CommonOptions _common = new(1L << 30,
        "Bytes of weights of the generated model, in whole layers of 4096 x 4096 float32 (64 MiB each), e.g. 256M, 1G, 2G.", acceptsFile: false);

    private readonly Option<string> _prepacking = BenchCommand.Defaulted("--prepacking", "off,on",
        "Comma-separated session settings: off (session.disable_prepacking = 1: ONNX Runtime maps the weights and the first inference faults them), " +
        "on (the default of ONNX Runtime: session creation copies the weights and unmaps the file).");

    private readonly Option<int> _initMs = BenchCommand.Defaulted("--init-ms", 200,
        "The engine's other start-up work, run in every row after the session is created: busy CPU work on one thread, calibrated to this many milliseconds. " +
        "start-during-init prefaults in the background while it runs.");

    private readonly Option<string?> _readAhead = ReadAheadPasses.CreateOption();

    private readonly Option<bool> _wide = new("--wide")
    {
        Description = "Print every column (init, prefault and load times, disk rate, the first inference's faults, residency, method); the JSON and Markdown files always have them.",
    };

    internal static Command Create()
    {
        var self = new EngineCommand();
        var command = new Command("engine",
            "A real engine (ONNX Runtime, CPU) on a cold model: session create, first and second inference, time to the first, with the prefault before or after the session is created or during init, prepacking off and on.");
        self._common.AddTo(command);
        return BenchCommand.Configure(command, self.Invoke, [self._prepacking, self._initMs, self._readAhead, self._wide]);
    }

    private int Invoke(ParseResult parse)
    {
        if (!BenchCommand.RunsHere("engine", "it evicts the page cache with posix_fadvise and finds the engine's mappings in /proc/self/maps."))
        {
            return 2;
        }

        using var progress = new ProgressLine();
        try
        {
            bool[] prepackings = ParsePrepacking(parse.GetValue(_prepacking)!);
            int initMs = parse.GetValue(_initMs) >= 0 ? parse.GetValue(_initMs) : throw new BenchException("--init-ms must be 0 or more.");
            int[] readAheads = ReadAheadPasses.Parse(parse.GetValue(_readAhead));
            int repeat = parse.GetValue(_common.Repeat);
            string directory = parse.GetValue(_common.Dir)!;
            EngineModel model = EngineModel.OpenOrCreate(directory, EngineModel.LayersFor(parse.GetValue(_common.Size)), EngineModel.DefaultDim, progress);
            var settings = BenchSettings.Defaults(RequestPlan.Pages(model.Data.Length));
            ColdStartStrategy[] limits = [.. ColdStartStrategy.All.Where(static s => s.IsLimit && s.RunsIn(CacheState.Cold) && s.Unavailable is null)];

            progress.Begin($"calibrating a {initMs} ms init");
            SimulatedInit init = SimulatedInit.Calibrate(TimeSpan.FromMilliseconds(initMs), sideFile: null);
            WarmUp(directory, prepackings, settings, progress);

            var notes = new List<string>();
            var limitSamples = new List<Sample>();
            var runs = new List<EngineRun>();
            using (FreePageReporting.Suspension? reporting = _common.SuspendPageReporting(parse, notes, progress))
            {
                foreach (int? readAheadKb in ReadAheadPasses.Each(model.Data.Path, readAheads, notes, progress))
                {
                    RunPass(readAheadKb, model, prepackings, limits, init, settings, repeat, limitSamples, runs, progress);
                }
            }

            string[] limitNames = [.. limits.Select(static s => s.Name)];
            List<ResultRow> rows = Sample.Summarize([.. limitSamples, .. runs.Select(static r => r.Sample)], [.. limitNames, .. EngineRows.All.Select(static r => r.Name)],
                [CacheState.Cold], model.Data.Length, limitNames);
            List<string> mismatches = EngineOutputs.Compare(runs, notes);
            notes.InsertRange(0, Explain(model, initMs, runs));
            BenchReport report = BenchReport.Create(CommonOptions.CommandLine(parse, "engine"), model.Data, repeat, rows, notes) with
            {
                Verdict = Verdict(rows),
                Bugs = [.. LimitCheck.Find(rows, limitNames), .. mismatches],
            };
            _common.Publish(parse, report, $"engine, ONNX Runtime {EngineRows.OrtVersion}, {Sizes.Format(model.Data.Length)}, {initMs} ms init", progress,
                wide: parse.GetValue(_wide));
            _common.CleanUp(parse, model.Data, progress);
            _common.CleanUp(parse, model.Data with { Path = model.ModelPath }, progress);
            return mismatches.Count == 0 ? 0 : 1;
        }
        catch (Exception e) when (e is BenchException or OnnxRuntimeException)
        {
            progress.Clear();
            Console.Error.WriteLine($"error: {e.Message}");
            return 1;
        }
    }

    /// <summary>
    /// One read-ahead pass: per repetition the limit readers and every (prepacking, row), cold, in an order that
    /// rotates each repetition so drift does not always favour the same row.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private static void RunPass(int? readAheadKb, EngineModel model, bool[] prepackings, ColdStartStrategy[] limits, SimulatedInit init, BenchSettings settings,
        int repeat, List<Sample> limitSamples, List<EngineRun> runs, ProgressLine progress)
    {
        BlockDevice device = BlockDevice.Of(model.Data.Path);
        var steps = new List<(string Name, Action Run)>();
        foreach (ColdStartStrategy limit in limits)
        {
            steps.Add((limit.Name, () => limitSamples.Add(ColdStartRunner.Measure(model.Data, device, limit, CacheState.Cold, settings) with { ReadAheadKb = readAheadKb })));
        }

        foreach (bool prepacking in prepackings)
        {
            foreach (EngineRow row in EngineRows.All)
            {
                steps.Add(($"{row.Name}, prepacking {EngineRows.Setting(prepacking)}", () =>
                {
                    EngineRun run = EngineRows.Measure(row, model, prepacking, init, settings, device);
                    runs.Add(run with { Sample = run.Sample with { ReadAheadKb = readAheadKb } });
                }));
            }
        }

        string pass = readAheadKb is int kb ? $"read_ahead_kb {kb}, " : string.Empty;
        int step = 0;
        for (int r = 0; r < repeat; r++)
        {
            for (int i = 0; i < steps.Count; i++)
            {
                (string name, Action run) = steps[(i + r) % steps.Count];
                progress.Begin($"[{++step}/{repeat * steps.Count}] {pass}repetition {r + 1}/{repeat}, cold, {name}");
                run();
            }
        }

        progress.Clear();
    }

    /// <summary>
    /// Every row once over a one-layer 64 x 64 model, untimed: ONNX Runtime's native library, its thread pools and the
    /// code of every row load here, not in whichever row runs first.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private static void WarmUp(string directory, bool[] prepackings, BenchSettings settings, ProgressLine progress)
    {
        EngineModel tiny = EngineModel.OpenOrCreate(directory, layers: 1, dim: 64, progress);
        BlockDevice device = BlockDevice.Of(tiny.Data.Path);
        SimulatedInit none = SimulatedInit.Calibrate(TimeSpan.Zero, sideFile: null);
        foreach (bool prepacking in prepackings)
        {
            foreach (EngineRow row in EngineRows.All)
            {
                progress.Begin($"warm-up over {Path.GetFileName(tiny.ModelPath)}: {row.Name}, prepacking {EngineRows.Setting(prepacking)}");
                EngineRows.Measure(row, tiny, prepacking, none, settings, device);
            }
        }
    }

    /// <summary>What the rows did and what the columns mean, in the report's words (docs/benchmarks.md has the long form).</summary>
    private static List<string> Explain(EngineModel model, int initMs, List<EngineRun> runs)
    {
        var notes = new List<string>
        {
            $"Model: {model.Description} ({Path.GetFileName(model.ModelPath)}); ONNX Runtime {EngineRows.OrtVersion}, CPU provider, default session options " +
                "but prepacking (off: session.disable_prepacking = 1).",
            $"Every row: the weights evicted (cold), the session created, {initMs} ms of simulated init (busy CPU on one thread, an engine's other start-up work), " +
                "two inferences of the same input. prefault-after-create: MmapPrefault.Run over NativeMappings.OfFile(weights) after create; " +
                "prefault-before-create: MappedModel.OpenFile(weights) + MmapPrefault.Run, create, then the MappedModel disposed; " +
                "start-during-init: MmapPrefault.Start over NativeMappings.OfFile after create, the init while it sweeps, then a blocking wait on handle.Completion.",
            "to-first s: from the row's start to the end of its first inference (create + prefault + init + first; start-during-init's sweep overlaps the init). " +
                "x warm: the first inference over the second, the median of that ratio over repetitions. prefault s (--wide): Run's time; start-during-init's, " +
                "the background sweep's own (PrefaultResult.Elapsed).",
            "limit: the best (lowest median) of the cold limit-* readers of the same read-ahead pass, as in coldstart; its to-first s is its read of the whole file. " +
                "x limit: the limit's time over the row's load time: create + prefault s + what the first inference took beyond the second " +
                "(with prepacking on, create reads and copies the weights).",
        };
        foreach (IGrouping<string?, EngineRun> setting in runs.Where(static r => r.Mappings is not null).GroupBy(static r => r.Sample.Prepacking))
        {
            int[] found = [.. setting.Select(static r => r.Mappings!.Value).Distinct().Order()];
            notes.Add(found is [0]
                ? $"prepacking {setting.Key}: NativeMappings.OfFile found 0 mappings of the weights after create (ONNX Runtime copied them and unmapped the file): " +
                    $"{EngineRows.AfterCreate} and {EngineRows.StartDuringInit} had nothing to prefault; only {EngineRows.BeforeCreate} can, before create reads the file."
                : $"prepacking {setting.Key}: NativeMappings.OfFile found {string.Join(" or ", found)} mapped ranges of the weights after create " +
                    $"(ONNX Runtime maps each of the {model.Layers} initializers itself; the kernel may merge neighbouring mappings into one range).");
        }

        foreach (IGrouping<string?, EngineRun> setting in runs.Where(static r => r.GivenBackBytes is not null).GroupBy(static r => r.Sample.Prepacking))
        {
            long median = Statistics.Median(setting.Select(static r => r.GivenBackBytes!.Value));
            notes.Add($"{EngineRows.BeforeCreate}, prepacking {setting.Key}: disposing the MappedModel after create gave back {Sizes.Format(median)} of RssFile " +
                "(median): the library's view of the weights goes; the engine keeps " + (setting.Key == "on" ? "its own copy." : "its own mappings, the page cache the pages."));
        }

        return notes;
    }

    /// <summary>
    /// One line: the prefault row that applies (after create with prepacking off, before create with it on) against
    /// <c>none</c> of the same setting, in the last read-ahead pass (the disk's own value when the run restores it last).
    /// </summary>
    private static string? Verdict(List<ResultRow> rows)
    {
        int? pass = rows.Count == 0 ? null : rows[^1].ReadAheadKb;
        ResultRow[] ofPass = [.. rows.Where(r => r.ReadAheadKb == pass)];
        string setting = ofPass.Any(static r => r.Prepacking == "off") ? "off" : "on";
        string prefaultRow = setting == "off" ? EngineRows.AfterCreate : EngineRows.BeforeCreate;
        ResultRow? prefault = ofPass.FirstOrDefault(r => r.Prepacking == setting && r.Strategy == prefaultRow);
        ResultRow? none = ofPass.FirstOrDefault(r => r.Prepacking == setting && r.Strategy == EngineRows.None);
        if (prefault is null || none is null)
        {
            return null;
        }

        string where = pass is int kb ? $" (read_ahead_kb {kb})" : string.Empty;
        string limit = prefault.RatioToLimit is double ratio ? $", loaded at {ratio:0.00}x the disk limit" : string.Empty;
        return $"Verdict{where}: {prefaultRow} (prepacking {setting}): first inference {ResultTable.Ratio(prefault.RatioToWarm)} the second{limit}, " +
            $"to first inference {ResultTable.Seconds(prefault.TotalSeconds)} s; none: first inference {ResultTable.Ratio(none.RatioToWarm)} the second, " +
            $"to first inference {ResultTable.Seconds(none.TotalSeconds)} s.";
    }

    private static bool[] ParsePrepacking(string value) =>
        CommaList.Parse(value, static item => item switch
        {
            "off" => false,
            "on" => true,
            _ => throw new BenchException($"--prepacking: unknown setting '{item}'; use off, on or off,on."),
        }) is { Length: > 0 } settings ? settings : throw new BenchException("--prepacking: give off, on or off,on.");
}
