using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// Runs every (repetition, cache state, strategy): sets and checks the cache state, measures faults and residency
/// around the row, and rotates the strategies' order each repetition so drift (a warming disk, another build on
/// the machine) does not always favour the same row.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class ColdStartRunner(WeightsFile file, BenchSettings settings, IReadOnlyList<ColdStartStrategy> strategies,
    IReadOnlyList<CacheState> caches, int repeat, ProgressLine progress)
{
    internal List<Sample> Run()
    {
        var samples = new List<Sample>();
        int steps = repeat * caches.Count * strategies.Count;
        int step = 0;
        for (int r = 0; r < repeat; r++)
        {
            for (int c = 0; c < caches.Count; c++)
            {
                // Alternate which cache state goes first, too.
                CacheState cache = caches[(c + r) % caches.Count];
                for (int i = 0; i < strategies.Count; i++)
                {
                    ColdStartStrategy strategy = strategies[(i + r) % strategies.Count];
                    step++;
                    progress.Begin($"[{step}/{steps}] repetition {r + 1}/{repeat}, {CacheControl.Name(cache)}, {strategy.Name}");
                    samples.Add(Measure(strategy, cache));
                }
            }
        }

        progress.Clear();
        return samples;
    }

    private Sample Measure(ColdStartStrategy strategy, CacheState cache)
    {
        double before = CacheControl.Establish(file, cache);
        FaultCounts faultsBefore = FaultCounts.Now();
        StrategyTimes times = strategy.Execute(file, cache, settings);
        FaultCounts faults = FaultCounts.Now() - faultsBefore;
        double after = Residency.OfFile(file.Path).Percent;
        return new Sample(strategy.Name, cache, times, faults, before, after);
    }
}
