using System.CommandLine;
using System.Diagnostics;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// <c>overlap</c>: time to the first request (init + first pass) when the prefault runs not at all, after the
/// engine's init (<see cref="MmapPrefault.Run(IReadOnlyList{PrefaultRegion}, PrefaultOptions?, CancellationToken)"/>), in the
/// background from before it (<see cref="MmapPrefault.Start(IReadOnlyList{PrefaultRegion}, PrefaultOptions?, CancellationToken)"/>,
/// then a wait for all of it), or in the background with the request walking its layers as each becomes ready
/// (<see cref="PrefaultHandle.WhenReady(int)"/>). Every row runs the same request layer by layer. Cold file every time.
/// </summary>
internal sealed class OverlapCommand
{
    private readonly CommonOptions _common = new();

    private readonly Option<int> _initMs = BenchCommand.Defaulted("--init-ms", 1500, "The simulated engine init: busy CPU work on one thread, calibrated to this many milliseconds.");

    private readonly Option<int> _initThreads = BenchCommand.Defaulted("--init-threads", 1,
        "Threads the simulated init's CPU work runs on at once, each doing --init-ms of it (so the init still takes --init-ms " +
        "when nothing competes); as many as cores keeps every core busy, so a background prefault has none to itself.");

    private readonly Option<long> _initRead = CommonOptions.SizeOption("--init-read", 0,
        "Bytes the simulated init also reads, cold, from a side file before its CPU work (a tokenizer, a vocabulary, a second model), e.g. 256M; 0: none. " +
        "Shows what the background prefault's disk use costs an init that reads too.");

    private readonly Option<int> _firstPassThreads = BenchCommand.Defaulted("--first-pass-threads", Environment.ProcessorCount, "Threads of the simulated first request.");

    private readonly Option<int> _layers = BenchCommand.Defaulted("--layers", 48,
        "Layers of the simulated engine: equal slices of the file, walked in order by the request (and one region each for start-layer-by-layer).");

    private readonly Option<string> _request = BenchCommand.Defaulted("--request", "pages",
        "The first request over each layer: pages (one byte per page, no compute) or dense (every byte summed).");

    private readonly Option<string> _settle = ReportingSettle.CreateOption();

    private readonly Option<bool> _wide = new("--wide")
    {
        Description = "Print every column (min-max, init waited, sweep GiB/s, faults, residency, method) and the full notes; the default keeps to 100 columns.",
    };

    /// <summary>What the compact table's columns mean, one short line each (<c>--wide</c> prints the full notes).</summary>
    private static readonly string[] Legend =
    [
        "init s: the simulated init; it stretches when the prefault competes for the cores or the disk",
        "prefault s: the prefault's time not hidden behind the init; first pass s: the request's own time",
        "first layer done s: from the start of init to the end of the request's first layer",
        "to first request s: from the start of init to the end of the whole request (median of --repeat)",
        "--wide: every column (min-max, init waited, sweep GiB/s, faults, residency, method) and the full notes",
    ];

    internal static Command Create()
    {
        var self = new OverlapCommand();
        var command = new Command("overlap",
            "Time to the first request with a simulated engine init: no prefault, Run after init, Start before init, Start with the request walking layers as they become ready (cold file each time).");
        self._common.AddTo(command);
        command.Options.Add(self._initMs);
        command.Options.Add(self._initThreads);
        command.Options.Add(self._initRead);
        command.Options.Add(self._firstPassThreads);
        command.Options.Add(self._layers);
        command.Options.Add(self._request);
        command.Options.Add(self._settle);
        command.Options.Add(self._wide);
        command.SetAction(self.InvokeAsync);
        return command;
    }

    private async Task<int> InvokeAsync(ParseResult parse, CancellationToken cancellationToken)
    {
        if (!OperatingSystem.IsLinux())
        {
            await Console.Error.WriteLineAsync("overlap needs Linux: it evicts the page cache with posix_fadvise.").ConfigureAwait(false);
            return 2;
        }

        using var progress = new ProgressLine();
        try
        {
            int initMs = parse.GetValue(_initMs);
            int firstPassThreads = parse.GetValue(_firstPassThreads);
            int layers = parse.GetValue(_layers);
            int initThreads = parse.GetValue(_initThreads);
            if (initMs < 0 || firstPassThreads < 1 || layers < 1 || initThreads < 1)
            {
                throw new BenchException("--init-ms must be 0 or more, and --init-threads, --first-pass-threads and --layers at least 1.");
            }

            RequestShape shape = RequestSpec.Parse(parse.GetValue(_request)!);
            if (shape == RequestShape.Moe)
            {
                throw new BenchException("--request: overlap runs pages or dense.");
            }

            int repeat = parse.GetValue(_common.Repeat);
            WeightsFile file = _common.ResolveFile(parse, progress);
            ModelLayout layout = ModelLayout.EqualSlices(file.Length, layers, experts: 1);
            RequestPlan request = shape == RequestShape.Pages
                ? RequestPlan.LayerPages(layout)
                : RequestPlan.Create(new RequestSpec(RequestShape.Dense, layers, 1, 0, 0, 0), layout, file.Length);
            long initRead = parse.GetValue(_initRead);
            if (initRead < 0)
            {
                throw new BenchException("--init-read must be 0 or more.");
            }

            WeightsFile? sideFile = initRead > 0 ? WeightsFile.OpenOrCreate(parse.GetValue(_common.Dir)!, initRead, progress) : null;
            if (sideFile is not null && sideFile.Path == file.Path)
            {
                throw new BenchException("--init-read must differ from the weights file's size: the init's side file would be the weights file.");
            }

            progress.Begin($"calibrating a {initMs} ms init");
            SimulatedInit init = SimulatedInit.Calibrate(TimeSpan.FromMilliseconds(initMs), sideFile, initThreads);

            var samples = new List<Sample>();
            var notes = new List<string>();
            using FreePageReporting.Suspension? reporting = _common.SuspendPageReporting(parse, notes, progress);
            bool reportingOn = FreePageReporting.ReportsDuring(reporting);
            ReportingSettle? settle = ReportingSettle.Create(parse.GetValue(_settle)!, reportingOn, file.Length, notes, progress);
            string loadBefore = LoadAverage();
            var readAhead = new SortedSet<string>(StringComparer.Ordinal);
            int step = 0;
            for (int r = 0; r < repeat; r++)
            {
                for (int i = 0; i < OverlapScenario.All.Count; i++)
                {
                    OverlapScenario scenario = OverlapScenario.All[(i + r) % OverlapScenario.All.Count];
                    string label = $"[{++step}/{repeat * OverlapScenario.All.Count}] repetition {r + 1}/{repeat}, cold, {scenario.Name}";
                    progress.Begin(label);
                    Func<double>? settled = settle is null ? null : () => settle.Wait(label);
                    samples.Add(await MeasureAsync(scenario, file, layout, request, init, firstPassThreads, readAhead, settled).ConfigureAwait(false));
                    cancellationToken.ThrowIfCancellationRequested();
                }
            }

            reporting?.Dispose();
            if (settle is not null)
            {
                notes.Add(settle.Summary());
            }

            foreach (string how in readAhead)
            {
                notes.Add($"Read-ahead (PrefaultResult.ReadAheadDescription): {how}");
            }

            notes.Add($"Load average (1, 5, 15 min, /proc/loadavg) before the rows: {loadBefore}; after: {LoadAverage()}; " +
                "other work on the machine stretches every row alike, so the verdict compares rows within each repetition.");
            progress.Clear();
            string initNote = $"Init: {(sideFile is null ? string.Empty : $"reads {Sizes.Format(sideFile.Length)} of a cold side file (1 MiB reads, one thread), then ")}" +
                $"{initMs} ms of busy CPU work on {(initThreads == 1 ? "one thread" : $"each of {initThreads} threads at once")} (calibrated idle on one thread; " +
                $"{Environment.ProcessorCount} cores); it takes longer when the prefault competes for the cores or the disk.";
            string requestNote = $"Request: {request.Description}; {firstPassThreads} thread(s), run layer by layer in every row.";
            BenchReport report = BenchReport.Create(CommonOptions.CommandLine(parse, "overlap"), file, repeat,
                Sample.Summarize(samples, [.. OverlapScenario.All.Select(static s => s.Name)], [CacheState.Cold], file.Length, limitReaders: []),
                [
                    initNote,
                    requestNote,
                    "prefault s: the prefault's time not hidden behind the init (all of it for run-after-init; the wait on Completion for start-before-init; "
                        + "the waits on WhenReady between layers for start-layer-by-layer, which prefaults one region per layer).",
                    "first layer done s: from the start of init to the end of the request's first layer; time to first request s: to the end of the whole request.",
                    "sweep GiB/s: the prefault's own bytes over its own elapsed time (what per-region readiness costs the sweep shows here).",
                    .. notes,
                ]) with
                {
                    Legend = Legend,
                    Conditions = [initNote, requestNote, .. notes],
                    Verdict = Verdict(samples),
                };
            string threads = initThreads == 1 ? string.Empty : $" on {initThreads} threads";
            _common.Publish(parse, report, $"overlap, {Sizes.Format(file.Length)}, {initMs} ms init{threads}", progress, wide: parse.GetValue(_wide));
            _common.CleanUp(parse, file, progress);
            if (sideFile is not null)
            {
                _common.CleanUp(parse, sideFile, progress);
            }

            return 0;
        }
        catch (BenchException e)
        {
            progress.Clear();
            await Console.Error.WriteLineAsync($"error: {e.Message}").ConfigureAwait(false);
            return 1;
        }
    }

    [SupportedOSPlatform("linux")]
    private static async Task<Sample> MeasureAsync(OverlapScenario scenario, WeightsFile file, ModelLayout layout, RequestPlan request, SimulatedInit init, int firstPassThreads,
        SortedSet<string> readAhead, Func<double>? settle)
    {
        // The side file first, then the weights, then the wait for what both evictions freed to be reported.
        init.MakeCold();
        var counters = RowCounters.Start(file, CacheState.Cold, device: null, settle);
        OverlapTimes row;
        using (ColdStartStrategy.MappedFile mapped = ColdStartStrategy.Map(file))
        {
            row = await scenario.Run(new OverlapRun(mapped, layout, request, init, firstPassThreads, Stopwatch.GetTimestamp())).ConfigureAwait(false);
        }

        if (row.ReadAhead is not null)
        {
            readAhead.Add(row.ReadAhead);
        }

        var times = new StrategyTimes(row.PrefaultSeconds, row.Walk.ComputeSeconds, row.Method, row.Walk.Faults);
        return counters.Stop(scenario.Name, CacheState.Cold, times, row.InitSeconds) with
        {
            FirstLayerSeconds = row.Walk.FirstLayerSeconds,
            SweepGibPerSecond = row.SweepGibPerSecond,
            InitWaitSeconds = row.InitWaitSeconds,
        };
    }

    /// <summary>
    /// What the background prefault cost the init and what it saved the request, as ratios taken within each
    /// repetition (its four rows run back to back, so a machine whose load drifts moves them together), median and
    /// range over the repetitions: each row's init against no-prefault's, and the start rows' time to first request
    /// against run-after-init's.
    /// </summary>
    private static string Verdict(List<Sample> samples)
    {
        string Against(string row, string baseline, Func<Sample, double> figure)
        {
            var ratios = new List<double>();
            for (int r = 0; r + OverlapScenario.All.Count <= samples.Count; r += OverlapScenario.All.Count)
            {
                Sample[] repetition = [.. samples.Skip(r).Take(OverlapScenario.All.Count)];
                double b = figure(repetition.Single(s => s.Strategy == baseline));
                if (b > 0)
                {
                    ratios.Add(figure(repetition.Single(s => s.Strategy == row)) / b);
                }
            }

            return ratios.Count == 0 ? $"{row} -"
                : $"{row} {ResultTable.Ratio(Statistics.Median(ratios))} ({ResultTable.Ratio(ratios.Min())}-{ResultTable.Ratio(ratios.Max())})";
        }

        string Waited(string row)
        {
            double[] waits = [.. samples.Where(s => s.Strategy == row && s.InitWaitSeconds is not null).Select(static s => s.InitWaitSeconds ?? 0)];
            return waits.Length == 0 ? $"{row} -" : $"{row} {Statistics.Median(waits) * 1000:0} ms ({waits.Min() * 1000:0}-{waits.Max() * 1000:0})";
        }

        static double Init(Sample s) => s.InitSeconds ?? 0;
        static double Total(Sample s) => s.TotalSeconds;
        return "Init's wait for a core, a thread (schedstat; median, range): " +
            $"{Waited("no-prefault")}, {Waited("start-before-init")}, {Waited("start-layer-by-layer")}, {Waited("run-after-init")}." +
            Environment.NewLine +
            "Init against no-prefault's, per repetition (median, range): " +
            $"{Against("start-before-init", "no-prefault", Init)}, {Against("start-layer-by-layer", "no-prefault", Init)}, {Against("run-after-init", "no-prefault", Init)}." +
            Environment.NewLine +
            "Time to first request against run-after-init's: " +
            $"{Against("start-before-init", "run-after-init", Total)}, {Against("start-layer-by-layer", "run-after-init", Total)}, {Against("no-prefault", "run-after-init", Total)}.";
    }

    /// <summary>The 1, 5 and 15 minute load averages as /proc/loadavg has them.</summary>
    private static string LoadAverage()
    {
        try
        {
            string[] fields = File.ReadAllText("/proc/loadavg").Split(' ');
            return fields.Length >= 3 ? $"{fields[0]} {fields[1]} {fields[2]}" : "unknown";
        }
        catch (IOException)
        {
            return "unknown";
        }
    }

    /// <summary>
    /// The engine's first request, layer by layer on the first-pass threads; with <paramref name="readiness"/>, each
    /// layer first awaits <see cref="PrefaultHandle.WhenReady(int)"/> of its region, so it computes while later layers load.
    /// </summary>
    internal static async Task<RequestWalk> WalkAsync(ColdStartStrategy.MappedFile mapped, RequestPlan request, int threads, PrefaultHandle? readiness, long started)
    {
        double waited = 0;
        double computed = 0;
        double firstLayer = 0;
        FaultCounts faults = default;
        for (int layer = 0; layer < request.Steps.Count; layer++)
        {
            if (readiness is not null)
            {
                long waitStarted = Stopwatch.GetTimestamp();
                await readiness.WhenReady(layer).ConfigureAwait(false);
                waited += Stopwatch.GetElapsedTime(waitStarted).TotalSeconds;
            }

            (double seconds, FaultCounts stepFaults) = RunLayer(mapped, request.Step(layer), threads);
            computed += seconds;
            faults = new FaultCounts(faults.Minor + stepFaults.Minor, faults.Major + stepFaults.Major, faults.StorageBytes + stepFaults.StorageBytes);
            if (layer == 0)
            {
                firstLayer = Stopwatch.GetElapsedTime(started).TotalSeconds;
            }
        }

        return new RequestWalk(waited, computed, firstLayer, faults);
    }

    /// <summary>One layer on the first-pass threads (its helper threads start per layer, in every row alike).</summary>
    private static unsafe (double Seconds, FaultCounts Faults) RunLayer(ColdStartStrategy.MappedFile mapped, RequestPlan layer, int threads) =>
        FirstPass.Run(mapped.Start, layer, threads);

    /// <summary>One region per layer of <paramref name="layout"/> over the mapping, in layer order, named by layer.</summary>
    internal static PrefaultRegion[] LayerRegions(PrefaultRegion file, ModelLayout layout)
    {
        var regions = new PrefaultRegion[layout.Layers.Count];
        for (int i = 0; i < regions.Length; i++)
        {
            LayerLayout layer = layout.Layers[i];
            ByteRange[] ranges = [.. layer.Ranges];
            long from = ranges.Length == 0 ? 0 : ranges.Min(static r => r.Offset);
            long to = ranges.Length == 0 ? 0 : ranges.Max(static r => r.End);
            regions[i] = new PrefaultRegion(file.Address + (nint)from, to - from, layer.Name);
        }

        return regions;
    }

    /// <summary>What the request's walk took: the waits on readiness, the compute, the end of its first layer (from the start of init).</summary>
    internal readonly record struct RequestWalk(double WaitSeconds, double ComputeSeconds, double FirstLayerSeconds, FaultCounts Faults);
}
