using System.Diagnostics;

namespace Sharpi.Prefault.Bench;

/// <summary>What one overlap row runs over: the mapping, the request, the init, and when the row started.</summary>
internal sealed record OverlapRun(ColdStartStrategy.MappedFile Mapped, ModelLayout Layout, RequestPlan Request, SimulatedInit Init, int FirstPassThreads, long Started)
{
    internal Task<OverlapCommand.RequestWalk> WalkAsync(PrefaultHandle? readiness = null) =>
        OverlapCommand.WalkAsync(Mapped, Request, FirstPassThreads, readiness, Started);
}

/// <summary>
/// What one overlap row took: the init, how long its threads waited for a core (schedstat), the prefault's time not
/// hidden behind it, the sweep's speed, how it brought pages in, the request, and the library's read-ahead description.
/// </summary>
internal readonly record struct OverlapTimes(double InitSeconds, double InitWaitSeconds, double PrefaultSeconds, double? SweepGibPerSecond, string Method,
    OverlapCommand.RequestWalk Walk, string? ReadAhead = null);

/// <summary>
/// One place for the prefault around the engine's init, as coldstart's <see cref="ColdStartStrategy"/> rows are: no
/// prefault, <c>Run</c> after the init, <c>Start</c> before it and a wait for all, or <c>Start</c> with the request
/// walking its layers as each becomes ready. Every row runs the same request layer by layer.
/// </summary>
internal sealed record OverlapScenario(string Name, Func<OverlapRun, Task<OverlapTimes>> Run)
{
    /// <summary>Every row, in the order the table shows them.</summary>
    internal static IReadOnlyList<OverlapScenario> All { get; } =
    [
        new("no-prefault", static async run =>
        {
            double init = run.Init.Run(out double waited);
            return new OverlapTimes(init, waited, 0, null, "none", await run.WalkAsync().ConfigureAwait(false));
        }),
        new("run-after-init", static async run =>
        {
            double init = run.Init.Run(out double waited);
            long prefaultStarted = Stopwatch.GetTimestamp();
            PrefaultResult result = MmapPrefault.Run([run.Mapped.Region]);
            double prefault = Stopwatch.GetElapsedTime(prefaultStarted).TotalSeconds;
            return new OverlapTimes(init, waited, prefault, result.GiBPerSecond, PrefaultMethodNames.Of(result.Method), await run.WalkAsync().ConfigureAwait(false),
                result.ReadAheadDescription);
        }),
        new("start-before-init", static async run =>
        {
            await using PrefaultHandle handle = MmapPrefault.Start([run.Mapped.Region]);
            run.Init.Run(out double waited);
            double init = Stopwatch.GetElapsedTime(run.Started).TotalSeconds;
            PrefaultResult result = await handle.Completion.ConfigureAwait(false);
            double prefault = Stopwatch.GetElapsedTime(run.Started).TotalSeconds - init;
            string method = $"{PrefaultMethodNames.Of(result.Method)} in the background ({result.Elapsed.TotalSeconds:0.00} s)";
            return new OverlapTimes(init, waited, prefault, result.GiBPerSecond, method, await run.WalkAsync().ConfigureAwait(false), result.ReadAheadDescription);
        }),
        new("start-layer-by-layer", static async run =>
        {
            // The engine's layers in execution order, one region each: WhenReady(i) is layer i.
            await using PrefaultHandle handle = MmapPrefault.Start(OverlapCommand.LayerRegions(run.Mapped.Region, run.Layout));

            // From the row's start, as start-before-init counts it: Start's own time (the gate, the plan) is the
            // engine's too. init.Run() alone left it out of the total but not out of the first layer's time, so the
            // first layer could end after the whole request.
            run.Init.Run(out double waited);
            double init = Stopwatch.GetElapsedTime(run.Started).TotalSeconds;
            OverlapCommand.RequestWalk walk = await run.WalkAsync(handle).ConfigureAwait(false);
            PrefaultResult result = await handle.Completion.ConfigureAwait(false);
            string method = $"{PrefaultMethodNames.Of(result.Method)} in the background ({result.Elapsed.TotalSeconds:0.00} s), {run.Layout.Layers.Count} regions";
            return new OverlapTimes(init, waited, walk.WaitSeconds, result.GiBPerSecond, method, walk, result.ReadAheadDescription);
        }),
    ];
}
