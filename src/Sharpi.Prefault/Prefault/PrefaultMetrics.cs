using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;

namespace Sharpi.Prefault;

/// <summary>
/// The prefault's instruments on the <c>Sharpi.Prefault</c> meter, named by the OpenTelemetry conventions, with the
/// attributes <c>sharpi.prefault.label</c>, <c>.method</c> and <c>.outcome</c>.
/// </summary>
internal static class PrefaultMetrics
{
    /// <summary>Records a run where someone listens; compiling this method loads no DiagnosticSource type.</summary>
    internal static void Record(string label, PrefaultResult result)
    {
        if (SharpiMeter.IsObservable)
        {
            Instruments.Record(label, result);
        }
    }

    /// <summary>The outcome attribute's value (<c>failed</c>: some regions failed).</summary>
    internal static string OutcomeOf(PrefaultResult result) =>
        result.IsCanceled ? "cancelled"
        : !result.HasRun ? "skipped"
        : result.IsPartial ? "partial"
        : result.Failures.Count > 0 ? "failed"
        : "completed";

    /// <summary>The instruments, created together when the first run is recorded.</summary>
    internal static class Instruments
    {
        // Runs take milliseconds (warm) to minutes (cold): boundaries in seconds, about x2.5 apart.
        private static readonly double[] DurationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500];

        private static readonly Counter<long> Swept = SharpiMeter.Meter.CreateCounter<long>(
            "sharpi.prefault.swept", "By", "Bytes brought in or confirmed resident by prefault sweeps.");

        private static readonly Counter<long> AlreadyResident = SharpiMeter.Meter.CreateCounter<long>(
            "sharpi.prefault.already_resident", "By", "Bytes of the regions that were already resident before a run.");

        private static readonly Histogram<double> Duration = CreateDuration();

        private static readonly Counter<long> Runs = SharpiMeter.Meter.CreateCounter<long>(
            "sharpi.prefault.runs", "{run}", "Prefault runs, by outcome (skipped runs included).");

        private static readonly Counter<long> RegionFailures = SharpiMeter.Meter.CreateCounter<long>(
            "sharpi.prefault.region.failures", "{region}", "Regions or parts of regions that could not be prefaulted.");

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void Record(string label, PrefaultResult result)
        {
            var tags = new TagList
            {
                { SharpiMeter.LabelAttribute, label },
                { SharpiMeter.MethodAttribute, PrefaultMethodNames.Of(result.Method) },
                { SharpiMeter.OutcomeAttribute, OutcomeOf(result) },
            };
            Runs.Add(1, tags);
            if (!result.HasRun)
            {
                return;
            }

            Swept.Add(result.Bytes, tags);
            AlreadyResident.Add(result.BytesAlreadyResident, tags);
            Duration.Record(result.Elapsed.TotalSeconds, tags);
            if (result.Failures.Count > 0)
            {
                RegionFailures.Add(result.Failures.Count, tags);
            }
        }

        private static Histogram<double> CreateDuration()
        {
#if NET9_0_OR_GREATER
            return SharpiMeter.Meter.CreateHistogram<double>("sharpi.prefault.duration", "s", "Wall time of prefault runs.",
                tags: null, advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = DurationBuckets });
#else
            _ = DurationBuckets; // net8.0's DiagnosticSource has no bucket advice; exporters use their defaults there.
            return SharpiMeter.Meter.CreateHistogram<double>("sharpi.prefault.duration", "s", "Wall time of prefault runs.");
#endif
        }
    }
}
