using System.CommandLine;
using System.Diagnostics;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// <c>overlap</c>: time to the first request (init + first pass) when the prefault runs not at all, after the
/// engine's init (<see cref="MmapPrefault.Run(IReadOnlyList{PrefaultRegion}, PrefaultOptions?, CancellationToken)"/>), or in the
/// background from before it (<see cref="MmapPrefault.Start(IReadOnlyList{PrefaultRegion}, PrefaultOptions?, CancellationToken)"/>).
/// Cold file every time.
/// </summary>
internal sealed class OverlapCommand
{
    private static readonly string[] Scenarios = ["no-prefault", "run-after-init", "start-before-init"];

    private readonly CommonOptions _common = new();

    private readonly Option<int> _initMs = new("--init-ms")
    {
        Description = "The simulated engine init: busy CPU work on one thread, calibrated to this many milliseconds.",
        DefaultValueFactory = _ => 1500,
    };

    private readonly Option<int> _firstPassThreads = new("--first-pass-threads")
    {
        Description = "Threads of the simulated first request.",
        DefaultValueFactory = _ => Environment.ProcessorCount,
    };

    internal static Command Create()
    {
        var self = new OverlapCommand();
        var command = new Command("overlap", "Time to the first request with a simulated engine init: no prefault, Run after init, Start before init (cold file each time).");
        self._common.AddTo(command);
        command.Options.Add(self._initMs);
        command.Options.Add(self._firstPassThreads);
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
            if (initMs < 0 || firstPassThreads < 1)
            {
                throw new BenchException("--init-ms must be 0 or more and --first-pass-threads at least 1.");
            }

            int repeat = parse.GetValue(_common.Repeat);
            WeightsFile file = _common.ResolveFile(parse, progress);
            progress.Begin($"calibrating a {initMs} ms init");
            SimulatedInit init = SimulatedInit.Calibrate(TimeSpan.FromMilliseconds(initMs));

            var samples = new List<Sample>();
            int step = 0;
            for (int r = 0; r < repeat; r++)
            {
                for (int i = 0; i < Scenarios.Length; i++)
                {
                    string scenario = Scenarios[(i + r) % Scenarios.Length];
                    progress.Begin($"[{++step}/{repeat * Scenarios.Length}] repetition {r + 1}/{repeat}, cold, {scenario}");
                    samples.Add(await MeasureAsync(scenario, file, init, firstPassThreads).ConfigureAwait(false));
                    cancellationToken.ThrowIfCancellationRequested();
                }
            }

            progress.Clear();
            BenchReport report = BenchReport.Create(CommonOptions.CommandLine(parse, "overlap"), file, repeat,
                Sample.Summarize(samples, Scenarios, [CacheState.Cold], file.Length, limitReaders: []),
                [
                    $"Init: {initMs} ms of busy CPU work on one thread (calibrated idle); it takes longer when the prefault competes for the cores.",
                    "prefault s: the prefault's time not hidden behind the init (all of it for run-after-init; the wait on Completion for start-before-init).",
                ]);
            _common.Publish(parse, report, $"overlap, {ByteSize.Format(file.Length)}, {initMs} ms init", progress);
            _common.CleanUp(parse, file, progress);
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
    private static async Task<Sample> MeasureAsync(string scenario, WeightsFile file, SimulatedInit init, int firstPassThreads)
    {
        double before = CacheControl.Establish(file, CacheState.Cold);
        FaultCounts faultsBefore = FaultCounts.Now();
        double initSeconds;
        double prefaultSeconds = 0;
        string method = "none";
        (double Seconds, FaultCounts Faults) firstPass;
        using (ColdStartStrategy.MappedFile mapped = ColdStartStrategy.Map(file))
        {
            PrefaultRegion[] regions = [mapped.Region];
            long started = Stopwatch.GetTimestamp();
            switch (scenario)
            {
                case "start-before-init":
                    await using (PrefaultHandle handle = MmapPrefault.Start(regions))
                    {
                        init.Run();
                        initSeconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
                        PrefaultResult result = await handle.Completion.ConfigureAwait(false);
                        prefaultSeconds = Stopwatch.GetElapsedTime(started).TotalSeconds - initSeconds;
                        method = $"{ColdStartStrategy.MethodName(result.Method)} in the background ({result.Elapsed.TotalSeconds:0.00} s)";
                    }

                    break;
                case "run-after-init":
                    initSeconds = init.Run();
                    long prefaultStarted = Stopwatch.GetTimestamp();
                    method = ColdStartStrategy.MethodName(MmapPrefault.Run(regions).Method);
                    prefaultSeconds = Stopwatch.GetElapsedTime(prefaultStarted).TotalSeconds;
                    break;
                default:
                    initSeconds = init.Run();
                    break;
            }

            unsafe
            {
                firstPass = FirstPass.Run(mapped.Start, file.Length, firstPassThreads);
            }
        }

        FaultCounts faults = FaultCounts.Now() - faultsBefore;
        double after = Residency.OfFile(file.Path).Percent;
        var times = new StrategyTimes(prefaultSeconds, firstPass, method);
        return new Sample(scenario, CacheState.Cold, times, faults, before, after, initSeconds);
    }
}
