using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// Runs every (repetition, cache state, strategy): sets and checks the cache state, measures faults and residency
/// around the row, and rotates the strategies' order each repetition so drift (a warming disk, another build on
/// the machine) does not always favour the same row, walking it with another stride each repetition (<see cref="Order"/>)
/// so a row follows another row in each repetition while the strides last. Each repetition also times the warm
/// request the rows' first requests are compared with (<c>x warm</c>).
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
                    ColdStartStrategy strategy = strategies[Order(i, r, strategies.Count)];
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
    /// The strategy run <paramref name="position"/>th in repetition <paramref name="repetition"/> of
    /// <paramref name="count"/>: the table's order walked with a stride (<see cref="Strides"/>: 1, backwards, then
    /// the others prime to the count), rotated by the repetition. Rotation alone keeps each row behind the same row in every
    /// repetition, and where a VM reports free pages that row decides what the next one lands on: after a row that read
    /// in 4 KiB folios the freed pages mostly stay unreported (no whole 2 MiB block to report), the settling wait finds
    /// nothing to wait for (0.02-0.03 s against 15-17 s after other rows), and the next row reads into memory the host
    /// still maps. The main job as the VM ships ran <c>prefault-touch</c> behind <c>prefault</c> every time. Backwards
    /// every other repetition still left each row behind the same row in two repetitions of three, and the median is
    /// that row's: with settling and compaction, <c>prefault-nohuge</c> (behind <c>prefault-touch</c> twice) loaded
    /// 0.79x-0.83x as long as <c>prefault</c> (behind <c>willneed</c> twice) in three passes on 2026-11-27 (runs not
    /// kept), though on that VM both run the same code, and with the two rows' places swapped <c>prefault</c> led by
    /// 1.28x (docs/results/coldstart-2g-swapped.json). With a new stride each repetition, a row follows a different
    /// row in as many repetitions as there are strides: 2 for 3, 4 and 6 rows (the third repetition repeats the first's
    /// neighbours), 4 or more for 5 rows and from 7 on (the main job's 14: 1, 13, 3, 5, 9, 11).
    /// </summary>
    internal static int Order(int position, int repetition, int count)
    {
        int[] strides = Strides(count);
        int stride = strides[repetition % strides.Length];
        return (int)(((long)position * stride + repetition) % count);
    }

    /// <summary>
    /// The strides that walk <paramref name="count"/> rows once each: 1, <paramref name="count"/> - 1 (backwards),
    /// then every other one prime to <paramref name="count"/> (2, 3, ...): each gives every row a row before it that
    /// the others did not.
    /// </summary>
    internal static int[] Strides(int count)
    {
        if (count <= 2)
        {
            return [1];
        }

        var strides = new List<int> { 1, count - 1 };
        for (int stride = 2; stride < count - 1; stride++)
        {
            if (GreatestCommonDivisor(stride, count) == 1)
            {
                strides.Add(stride);
            }
        }

        return [.. strides];
    }

    private static int GreatestCommonDivisor(int a, int b) => b == 0 ? a : GreatestCommonDivisor(b, a % b);

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
