using System.CommandLine;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// <c>coldstart</c> (the default command): for each cache state and strategy, map the file fresh, run the strategy,
/// then a first pass over every page; report the time to the first request against the device's limit.
/// </summary>
internal sealed class ColdStartCommand
{
    private readonly CommonOptions _common = new();

    private readonly Option<string?> _strategies = new("--strategies")
    {
        Description = $"Comma-separated rows to run (default: all): {string.Join(", ", ColdStartStrategy.All.Select(static s => s.Name))}.",
    };

    private readonly Option<string> _cache = new("--cache")
    {
        Description = "Comma-separated cache states: cold, warm.",
        DefaultValueFactory = _ => "cold,warm",
    };

    private readonly Option<int> _threads = new("--threads")
    {
        Description = "MaxDegreeOfParallelism of the prefault rows.",
        DefaultValueFactory = _ => Environment.ProcessorCount,
    };

    private readonly Option<long> _chunk = CommonOptions.SizeOption("--chunk", PrefaultOptions.DefaultChunkSize, "ChunkSize of the prefault rows, e.g. 2M, 32M.");

    private readonly Option<int> _firstPassThreads = new("--first-pass-threads")
    {
        Description = "Threads of the simulated first request (an engine's worker threads).",
        DefaultValueFactory = _ => Environment.ProcessorCount,
    };

    private readonly Option<int> _limitThreads = new("--limit-threads")
    {
        Description = "Threads of the O_DIRECT read limit.",
        DefaultValueFactory = _ => Math.Max(2, Environment.ProcessorCount),
    };

    /// <summary>Adds the options and the action to <paramref name="command"/> (the root command and <c>coldstart</c> both get them).</summary>
    internal static void Configure(Command command)
    {
        var self = new ColdStartCommand();
        self._common.AddTo(command);
        foreach (Option option in (Option[])[self._strategies, self._cache, self._threads, self._chunk, self._firstPassThreads, self._limitThreads])
        {
            command.Options.Add(option);
        }

        command.SetAction(self.Invoke);
    }

    private int Invoke(ParseResult parse)
    {
        if (!OperatingSystem.IsLinux())
        {
            Console.Error.WriteLine("coldstart needs Linux: it evicts the page cache with posix_fadvise and counts resident pages with mincore.");
            return 2;
        }

        using var progress = new ProgressLine();
        try
        {
            List<ColdStartStrategy> strategies = SelectStrategies(parse.GetValue(_strategies), out List<string> notes);
            List<CacheState> caches = SelectCaches(parse.GetValue(_cache)!);
            var settings = new BenchSettings(
                FirstPassThreads: Positive(parse.GetValue(_firstPassThreads), "--first-pass-threads"),
                PrefaultThreads: Positive(parse.GetValue(_threads), "--threads"),
                ChunkSize: parse.GetValue(_chunk),
                LimitThreads: Positive(parse.GetValue(_limitThreads), "--limit-threads"),
                LimitBlockSize: 32 * 1024 * 1024);
            int repeat = parse.GetValue(_common.Repeat);

            WeightsFile file = _common.ResolveFile(parse, progress);
            var runner = new ColdStartRunner(file, settings, strategies, caches, repeat, progress);
            List<Sample> samples = runner.Run();

            notes.Add("x limit: the row's GiB/s over the limit row's GiB/s in the same cache state (cold: O_DIRECT sequential read; warm: bare MADV_POPULATE_READ of the cached file, no first pass).");
            notes.Add($"Settings: prefault threads {settings.PrefaultThreads}, chunk {ByteSize.Format(settings.ChunkSize)}, first-pass threads {settings.FirstPassThreads}, " +
                $"limit {settings.LimitThreads} threads x {ByteSize.Format(settings.LimitBlockSize)} reads.");
            BenchReport report = BenchReport.Create(CommonOptions.CommandLine(parse, "coldstart"), file, repeat,
                Sample.Summarize(samples, strategies.Select(static s => s.Name), caches, file.Length, limitStrategy: "limit"), notes);
            _common.Publish(parse, report, $"coldstart, {ByteSize.Format(file.Length)}", progress);
            _common.CleanUp(parse, file, progress);
            return 0;
        }
        catch (BenchException e)
        {
            progress.Clear();
            Console.Error.WriteLine($"error: {e.Message}");
            return 1;
        }
    }

    private static List<ColdStartStrategy> SelectStrategies(string? filter, out List<string> notes)
    {
        notes = [];
        IEnumerable<ColdStartStrategy> chosen = ColdStartStrategy.All;
        if (!string.IsNullOrWhiteSpace(filter))
        {
            string[] names = filter.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
            foreach (string name in names)
            {
                if (!ColdStartStrategy.All.Any(s => s.Name == name))
                {
                    throw new BenchException($"--strategies: unknown row '{name}'; the rows are {string.Join(", ", ColdStartStrategy.All.Select(static s => s.Name))}.");
                }
            }

            chosen = ColdStartStrategy.All.Where(s => names.Contains(s.Name));
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

    private static List<CacheState> SelectCaches(string value)
    {
        var caches = new List<CacheState>();
        foreach (string name in value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            CacheState state = name switch
            {
                "cold" => CacheState.Cold,
                "warm" => CacheState.Warm,
                _ => throw new BenchException($"--cache: unknown state '{name}'; use cold, warm or cold,warm."),
            };
            if (!caches.Contains(state))
            {
                caches.Add(state);
            }
        }

        return caches.Count > 0 ? caches : throw new BenchException("--cache: give cold, warm or cold,warm.");
    }

    private static int Positive(int value, string name) => value >= 1 ? value : throw new BenchException($"{name} must be at least 1.");
}
