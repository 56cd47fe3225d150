using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// Runs every (repetition, cache state, strategy): sets and checks the cache state, measures faults and residency
/// around the row, and rotates the strategies' order each repetition so drift (a warming disk, another build on
/// the machine) does not always favour the same row. Each repetition also times the warm request the rows' first
/// requests are compared with (<c>x warm</c>).
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class ColdStartRunner(WeightsFile file, BenchSettings settings, IReadOnlyList<ColdStartStrategy> strategies,
    IReadOnlyList<CacheState> caches, int repeat, ProgressLine progress, ReportingSettle? settle = null, string? deviceName = null)
{
    private readonly BlockDevice _device = BlockDevice.Of(file.Path);

    /// <summary>Why the warm request could not be timed (the file does not stay cached), or null.</summary>
    internal string? WarmRequestSkipped { get; private set; }

    /// <summary>The samples of every row, and the warm request per repetition (none where it could not be timed).</summary>
    internal (List<Sample> Samples, List<WarmSample> WarmRequests) Run(int? readAheadKb)
    {
        var samples = new List<Sample>();
        var warm = new List<WarmSample>();
        var runPass = new RunPass(deviceName, readAheadKb);
        string pass = runPass == default ? string.Empty : runPass.Describe() + ", ";
        int steps = repeat * (1 + caches.Sum(c => strategies.Count(s => s.RunsIn(c))));
        int step = 0;
        for (int r = 0; r < repeat; r++)
        {
            progress.Begin($"[{++step}/{steps}] {pass}repetition {r + 1}/{repeat}, warm request");
            if (WarmRequestSkipped is null)
            {
                try
                {
                    warm.Add(new WarmSample(readAheadKb, WarmRequest.Measure(file, settings.Request, settings.FirstPassThreads), deviceName));
                }
                catch (BenchException e)
                {
                    // A model larger than the free memory can still run cold; it only loses its x warm.
                    WarmRequestSkipped = e.Message;
                }
            }

            for (int c = 0; c < caches.Count; c++)
            {
                // Alternate which cache state goes first, too.
                CacheState cache = caches[(c + r) % caches.Count];
                for (int i = 0; i < strategies.Count; i++)
                {
                    ColdStartStrategy strategy = strategies[(i + r) % strategies.Count];
                    if (!strategy.RunsIn(cache))
                    {
                        continue;
                    }

                    string label = $"[{++step}/{steps}] {pass}repetition {r + 1}/{repeat}, {CacheControl.Name(cache)}, {strategy.Name}";
                    progress.Begin(label);
                    Func<double>? settled = settle is null ? null : () => settle.Wait(label);
                    samples.Add(Measure(file, _device, strategy, cache, settings, settled) with { ReadAheadKb = readAheadKb, Device = deviceName });
                }
            }
        }

        progress.Clear();
        return (samples, warm);
    }

    /// <summary>
    /// One row once: the cache state set and checked (a cold row then waits for <paramref name="settle"/>), the faults,
    /// disk reads and residency around the strategy.
    /// </summary>
    internal static Sample Measure(WeightsFile file, BlockDevice device, ColdStartStrategy strategy, CacheState cache, BenchSettings settings,
        Func<double>? settle = null)
    {
        var counters = RowCounters.Start(file, cache, device, settle);
        return counters.Stop(strategy.Name, cache, strategy.Execute(file, cache, settings));
    }
}
