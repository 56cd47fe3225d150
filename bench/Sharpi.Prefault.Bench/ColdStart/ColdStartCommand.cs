using System.CommandLine;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// <c>coldstart</c> (the default command): for each read-ahead pass, cache state and strategy, map the file fresh,
/// run the strategy, then the first request (<c>--request</c>); report the time to the first request against the
/// best limit reader of the same run and each first request against the same request warm.
/// </summary>
internal sealed class ColdStartCommand
{
    private static readonly string RowNames = string.Join(", ", ColdStartStrategy.All.Select(static s => s.Name).Prepend(ColdStartStrategy.LimitName));

    private readonly CommonOptions _common = new();

    private readonly Option<string?> _strategies = new("--strategies")
    {
        Description = $"Comma-separated rows to run, in that order (default: all but the fresh-process prefault-jit/-package/-aot, in the table's order): {RowNames}; 'limit' runs every limit-* reader.",
    };

    private readonly Option<bool> _fresh = new("--fresh")
    {
        Description = "Also run the fresh-process rows prefault-jit, prefault-package and prefault-aot: MmapPrefault.Run as an engine makes it, once in a " +
            "process of its own, its map + first call as the load (publishes the hosts first, minutes; --reuse-hosts skips that).",
    };

    private readonly FreshHostOptions _hostOptions = new();

    private readonly Option<string> _cache = BenchCommand.Defaulted("--cache", "cold,warm", "Comma-separated cache states: cold, warm.");

    private readonly Option<int> _threads = BenchCommand.Defaulted("--threads", new PrefaultOptions().MaxDegreeOfParallelism,
        "MaxDegreeOfParallelism of the prefault rows (default: the library's default).");

    private readonly Option<long> _chunk = CommonOptions.SizeOption("--chunk", new PrefaultOptions().ChunkSize, "ChunkSize of the prefault rows, e.g. 2M, 32M.");

    private readonly Option<int> _firstPassThreads = BenchCommand.Defaulted("--first-pass-threads", Environment.ProcessorCount,
        "Threads of the simulated first request (an engine's worker threads).");

    private readonly Option<int> _limitThreads = BenchCommand.Defaulted("--limit-threads", Math.Max(2, Environment.ProcessorCount),
        "Threads of the buffered read limit (limit-buffered); the O_DIRECT limits run 2, 4 and 8 reads in flight.");

    private readonly Option<string> _request = BenchCommand.Defaulted("--request", "moe",
        "The first request every row runs: moe (layers x experts, each token's top-k experts per layer, every byte summed), " +
        "dense (every tensor in layer order, every byte summed) or pages (one byte per page, no compute).");

    private readonly Option<int> _layers = BenchCommand.Defaulted("--layers", 48,
        "moe/dense: layers of a generated file (a GGUF or safetensors --file brings its own from its tensor table).");

    private readonly Option<int> _experts = BenchCommand.Defaulted("--experts", 32, "moe: experts per layer of a generated file.");

    private readonly Option<int> _tokens = BenchCommand.Defaulted("--tokens", 16, "moe: tokens of the prefill; each picks --top-k experts per layer.");

    private readonly Option<int> _topK = BenchCommand.Defaulted("--top-k", 4, "moe: experts each token picks per layer.");

    private readonly Option<int> _seed = BenchCommand.Defaulted("--seed", 2026, "moe: seed of the router's random picks (every row and repetition reads the same experts).");

    private readonly Option<string?> _readAhead = ReadAheadPasses.CreateOption();

    private readonly Option<string> _settle = ReportingSettle.CreateOption();

    private readonly Option<string> _device = DeviceSpec.CreateOption();

    private readonly Option<bool> _wide = new("--wide")
    {
        Description = "Print every column (faults, disk GiB/s, residency, method) and the full notes; the default keeps to 100 columns.",
    };

    /// <summary>Adds the options and the action to <paramref name="command"/> (the root command and <c>coldstart</c> both get them).</summary>
    internal static void Configure(Command command)
    {
        var self = new ColdStartCommand();
        self._common.AddTo(command);
        BenchCommand.Configure(command, self.Invoke, [self._strategies, self._cache, self._request, self._layers, self._experts, self._tokens, self._topK, self._seed,
            self._readAhead, self._settle, self._device, self._threads, self._chunk, self._firstPassThreads, self._limitThreads, self._wide,
            self._fresh, .. self._hostOptions.All]);
    }

    private int Invoke(ParseResult parse)
    {
        if (!BenchCommand.RunsHere("coldstart", "it evicts the page cache with posix_fadvise and counts resident pages with mincore."))
        {
            return 2;
        }

        using var progress = new ProgressLine();
        try
        {
            List<ColdStartStrategy> strategies = SelectStrategies(parse.GetValue(_strategies), parse.GetValue(_fresh), out List<string> notes);
            CacheState[] caches = CacheControl.ParseSome(parse.GetValue(_cache), "cold, warm or cold,warm");
            RequestSpec spec = SelectRequest(parse);
            int[] readAheads = ReadAheadPasses.Parse(parse.GetValue(_readAhead));
            List<DeviceSpec> devices = DeviceSpec.Parse(parse.GetValue(_device)!);
            int repeat = parse.GetValue(_common.Repeat);

            CReaders? readers = BuildCReference(strategies, parse, notes, progress);
            WeightsFile file = _common.ResolveFile(parse, progress);
            RequestPlan request = RequestPlan.Create(spec, Layout(file, spec, notes), file.Length);
            var settings = new BenchSettings(
                FirstPassThreads: Positive(parse.GetValue(_firstPassThreads), "--first-pass-threads"),
                PrefaultThreads: Positive(parse.GetValue(_threads), "--threads"),
                ChunkSize: parse.GetValue(_chunk),
                LimitThreads: Positive(parse.GetValue(_limitThreads), "--limit-threads"),
                LimitBlockSize: BenchSettings.DefaultLimitBlockSize,
                Request: request)
            {
                FreshHosts = _hostOptions.Publish(parse, strategies.Select(static s => s.FreshHost).OfType<string>(), progress),
                CReaders = readers,
            };

            var samples = new List<Sample>();
            var warm = new List<WarmSample>();
            bool reportingOn;
            ReportingSettle? settle;
            string? warmSkipped = null;
            using (FreePageReporting.Suspension? reporting = _common.SuspendPageReporting(parse, notes, progress))
            {
                reportingOn = FreePageReporting.ReportsDuring(reporting);
                settle = ReportingSettle.Create(parse.GetValue(_settle)!, reportingOn, file.Length, notes, progress);
                bool named = devices.Any(static d => !d.IsMain);
                foreach ((DeviceSpec device, WeightsFile onDevice, int? readAheadBeforeAttach) in ScratchDevice.Each(devices, file, parse.GetValue(_common.Dir)!, progress, notes))
                {
                    var runner = new ColdStartRunner(onDevice, settings, strategies, caches, repeat, progress, settle, named ? device.Name : null);
                    foreach (int? readAheadKb in ReadAheadPasses.Each(onDevice.Path, readAheads, notes, progress, readAheadBeforeAttach))
                    {
                        (List<Sample> s, List<WarmSample> w) = runner.Run(readAheadKb);
                        samples.AddRange(s);
                        warm.AddRange(w);
                    }

                    warmSkipped ??= runner.WarmRequestSkipped;
                }
            }

            if (samples.Count == 0)
            {
                throw ScratchDevice.NoPassRan(notes);
            }

            if (settle is not null)
            {
                notes.Add(settle.Summary());
            }

            string[] limitReaders = [.. strategies.Where(static s => s.IsLimit).Select(static s => s.Name)];
            double? warmRequest = warm.Count > 0 ? Statistics.Median(warm.Select(static w => w.Seconds)) : null;
            if (warmSkipped is { } skipped)
            {
                notes.Add($"x warm: not measured: {skipped}");
            }

            string[] order = [.. strategies.Select(static s => s.Name)];
            List<ResultRow> rows = Sample.Summarize(samples, order, caches, file.Length, limitReaders, warm);
            List<string> bugs = LimitCheck.Find(rows, limitReaders);
            List<string> conditions = [.. notes];

            notes.Add("limit: the best (lowest median total) of the limit-* rows of the same cache state and read-ahead pass (cold: O_DIRECT 2/4/8 reads in flight " +
                "into 2 MiB-page buffers, O_DIRECT into 4 KiB pages, large buffered reads; warm: bare MADV_POPULATE_READ of the cached file, no request).");
            notes.Add("x limit: the limit's time over the row's load time. Cold, a row's load time is its strategy s plus what its first request took beyond its warm one " +
                "(the faults it left to the request: all of it for none); warm, its total. disk GiB/s: bytes the row read from storage (getrusage ru_inblock) over its total. " +
                $"A row that read from storage faster than the limit over its load time (cold), or beat its time (warm, and by 1 ms), by more than {LimitCheck.Noise * 100:0}% is flagged BUG.");
            notes.Add("x warm: the row's first request (first pass s) over its warm request, the median of the same request run three more times right after it on the " +
                "same memory (then everything it reads is mapped); the median over repetitions of that ratio, with the lowest and highest repetition's in the JSON " +
                "(minRatioToWarm, maxRatioToWarm); 1.0x = as fast as warm. x warm is the speed claim: a first request that took no major fault can still " +
                "run far above 1.0x (where a host maps the guest's memory lazily, its first touch of a page costs on the host, not in the guest's fault counts)." +
                (warm.Count > 0 ? $" The warm request of a fully cached, populated file (median of three runs after a settling one): {WarmSample.Describe(warm)}." : string.Empty));
            if (readers is not null)
            {
                notes.Add($"{ColdStartStrategy.CReferenceName}: {CReaders.Describe(CReaders.Populate)}, compiled from bench/Sharpi.Prefault.Bench/Native/reader.c " +
                    $"with {readers.Compiler} -O2; a fresh process per repetition, its open to last byte is the row's load, no request (first request s, " +
                    "to first done s and x warm are '-'); a reference for the plain mmap load, not ranked by the verdict.");
            }

            bool fresh = strategies.Any(static s => s.FreshHost is not null);
            if (fresh)
            {
                notes.Add("prefault-jit, prefault-package, prefault-aot: a fresh process per repetition (bench/Sharpi.Prefault.FirstCall published as a JIT host " +
                    "that references the library's project, one that installs its package, and a NativeAOT host) maps the file and makes its first " +
                    "MmapPrefault.Run with the defaults (--threads and --chunk do not reach it); the row's time and load s are that process's map + first call " +
                    "(its start-up before the map is not counted), it runs no request (first request s, to first done s and x warm are '-') and the verdict " +
                    "compares it by load only. Warm, it is the fixed cost alone: against prefault's warm row, what the first call in a fresh process adds.");
            }

            foreach (string how in ColdStartStrategy.ReadAheadSeen)
            {
                notes.Add($"Read-ahead (PrefaultResult.ReadAheadDescription) of the MmapPrefault rows: {how}");
            }

            foreach (string how in ColdStartStrategy.MechanismSeen)
            {
                notes.Add($"Mechanism (PrefaultResult.MechanismDescription) of an MmapPrefault row, in the order the rows ran: {how}");
            }

            notes.Add($"Settings: prefault threads {settings.PrefaultThreads}, chunk {Sizes.Format(settings.ChunkSize)} (the option; where the library " +
                $"swept in other chunks, its read-ahead note says so), first-pass threads {settings.FirstPassThreads}, " +
                $"limit reads of {Sizes.Format(settings.LimitBlockSize)}, buffered limit {settings.LimitThreads} threads.");
            BenchReport report = BenchReport.Create(CommonOptions.CommandLine(parse, "coldstart"), file, repeat, rows, notes) with
            {
                Request = request.Description,
                WarmRequestSeconds = warmRequest,
                Bugs = bugs,
                Verdict = ColdStartVerdict.Build(rows, limitReaders,
                    reportingOn ? (settle is null ? ", free page reporting on, not settled" : ", free page reporting on, " + settle.Condition()) : string.Empty),
                Legend = [.. Legend, .. (string[])(fresh ? [FreshLegend] : []), .. (string[])(readers is not null ? [CReferenceLegend] : [])],
                Headline = ColdStartVerdict.Headline(rows),
                Conditions = conditions,
            };
            _common.Publish(parse, report, $"coldstart, {Sizes.Format(file.Length)}, request {RequestSpec.Name(spec.Shape)}", progress, wide: parse.GetValue(_wide));
            _common.CleanUp(parse, file, progress);
            return 0;
        }
        catch (Exception) when (SignalExit.IsStopping)
        {
            // A signal handler is removing a scratch device under the rows and will end the process.
            SignalExit.Park();
            return 1;
        }
        catch (BenchException e)
        {
            progress.Clear();
            Console.Error.WriteLine($"error: {e.Message}");
            return 1;
        }
    }

    /// <summary>What the compact table's columns mean, one short line each (<c>--wide</c> prints the full notes).</summary>
    private static readonly string[] Legend =
    [
        "load s: the strategy, plus what its first request took beyond a warm one (faults left to it)",
        "first request s: the request after the strategy; to first done s: start of strategy to its end",
        "x warm: first request over the same request run again at once, the median of three (1.00x: as fast as warm; no major fault is not that)",
        "x limit: the run's best O_DIRECT or buffered reader over the row's load s (1.00: the disk)",
        ColdStartVerdict.Legend,
        "--wide: every column (faults, disk GiB/s, residency, method) and the full notes",
    ];

    /// <summary>The legend's line for the C reference row, where it ran.</summary>
    private const string CReferenceLegend =
        "c-populate: plain C in a fresh process (mmap, MADV_HUGEPAGE, MADV_POPULATE_READ, 2 threads, 32 MiB chunks), load only; a reference, not ranked";

    /// <summary>
    /// Compiles the C reader of the reference row where the run has it, as <c>firstcall</c> compiles it; where it
    /// cannot (no compiler), the row leaves the run and the notes say why (null then, and where the row is not run).
    /// </summary>
    private CReaders? BuildCReference(List<ColdStartStrategy> strategies, ParseResult parse, List<string> notes, ProgressLine progress)
    {
        if (strategies.FirstOrDefault(static s => s.IsReference) is not { } reference)
        {
            return null;
        }

        CReaders? readers = CReaders.Build(Path.Combine(_hostOptions.Directory(parse), "c-reader"), progress, out string? why);
        if (readers is null)
        {
            strategies.Remove(reference);
            notes.Add($"{reference.Name} (the plain C mmap reference): {why}.");
            if (strategies.Count == 0)
            {
                throw new BenchException("No row can run: " + string.Join(" ", notes));
            }
        }

        return readers;
    }

    /// <summary>The legend's line for the fresh-process rows, where they ran.</summary>
    private const string FreshLegend =
        "prefault-jit/-package/-aot: a fresh process's map + first MmapPrefault.Run (load s), no request; warm: the fixed cost alone";

    /// <summary>The layers and experts the request reads: a real model's tensor table, or equal slices of a generated file.</summary>
    private static ModelLayout Layout(WeightsFile file, RequestSpec spec, List<string> notes)
    {
        if (spec.Shape == RequestShape.Pages)
        {
            return ModelLayout.EqualSlices(file.Length, 1, 1);
        }

        if (!file.Generated)
        {
            if (ModelLayout.FromModel(file.Path, out string? why) is { } model)
            {
                if (spec.Shape == RequestShape.Moe && model.Layers.All(static l => l.Experts.Count == 0))
                {
                    notes.Add("--request moe: the model has no routed experts (no blk.N.ffn_*_exps or .experts.E. tensors); the request reads every layer whole, as dense does.");
                }

                return model;
            }

            notes.Add($"--file is not a GGUF or safetensors model ({why}); the request uses {spec.Layers} x {spec.Experts} equal slices.");
        }

        return ModelLayout.EqualSlices(file.Length, spec.Layers, spec.Experts);
    }

    private RequestSpec SelectRequest(ParseResult parse) => new(
        RequestSpec.Parse(parse.GetValue(_request)!),
        Layers: Positive(parse.GetValue(_layers), "--layers"),
        Experts: Positive(parse.GetValue(_experts), "--experts"),
        Tokens: Positive(parse.GetValue(_tokens), "--tokens"),
        TopK: Positive(parse.GetValue(_topK), "--top-k"),
        Seed: parse.GetValue(_seed));

    private static List<ColdStartStrategy> SelectStrategies(string? filter, bool fresh, out List<string> notes)
    {
        notes = [];
        IEnumerable<ColdStartStrategy> chosen = ColdStartStrategy.All.Where(static s => !s.IsOptIn);
        if (!string.IsNullOrWhiteSpace(filter))
        {
            string[] names = filter.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
            foreach (string name in names)
            {
                if (name != ColdStartStrategy.LimitName && !ColdStartStrategy.All.Any(s => s.Name == name))
                {
                    throw new BenchException($"--strategies: unknown row '{name}'; the rows are {RowNames}.");
                }
            }

            // "limit" stands for all its readers, since the limit row is the best of them. The rows run in the order
            // named ("limit" where it is named): the order the runner walks with another stride each repetition, as it
            // does the default order, so the first repetition's neighbours (and the second's, backwards) can be chosen.
            chosen = names.Distinct().SelectMany(static name => ColdStartStrategy.All.Where(s =>
                s.Name == name || (name == ColdStartStrategy.LimitName && s.IsLimit))).Distinct();
        }

        if (fresh)
        {
            // Named rows keep their order, the fresh-process ones not named after them; otherwise the table's order.
            ColdStartStrategy[] asked = [.. chosen];
            chosen = string.IsNullOrWhiteSpace(filter)
                ? ColdStartStrategy.All.Where(s => asked.Contains(s) || s.FreshHost is not null)
                : asked.Concat(ColdStartStrategy.All.Where(s => s.FreshHost is not null && !asked.Contains(s)));
        }

        var available = new List<ColdStartStrategy>();
        foreach (ColdStartStrategy strategy in chosen)
        {
            if (strategy.Unavailable is { } why)
            {
                notes.Add($"{strategy.Name}: skipped, {why}.");
            }
            else
            {
                available.Add(strategy);
            }
        }

        if (available.Count == 0)
        {
            throw new BenchException("No row can run: " + string.Join(" ", notes));
        }

        return available;
    }

    private static int Positive(int value, string name) => value >= 1 ? value : throw new BenchException($"{name} must be at least 1.");
}
