using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Sharpi.Prefault;

/// <summary>
/// The library's instruments, on the <c>Sharpi.Prefault</c> meter, so OpenTelemetry users see prefaults with no
/// extra code (<c>.AddMeter("Sharpi.Prefault")</c>). Tags: <c>label</c> and <c>method</c>.
/// </summary>
internal static class PrefaultMetrics
{
    internal const string MeterName = "Sharpi.Prefault";

    private static readonly Meter Meter = new(MeterName, typeof(PrefaultMetrics).Assembly.GetName().Version?.ToString());

    private static readonly Counter<long> BytesPrefaulted = Meter.CreateCounter<long>(
        "sharpi.prefault.bytes", "By", "Bytes covered by prefault sweeps.");

    private static readonly Counter<long> BytesAlreadyResident = Meter.CreateCounter<long>(
        "sharpi.prefault.bytes_already_resident", "By", "Bytes that were already resident before a sweep.");

    private static readonly Histogram<double> Duration = Meter.CreateHistogram<double>(
        "sharpi.prefault.duration", "s", "Wall time of prefault runs.");

    private static readonly Counter<long> Skips = Meter.CreateCounter<long>(
        "sharpi.prefault.skips", "{run}", "Runs the gate skipped (kill switch, no room, no regions).");

    private static readonly Counter<long> Failures = Meter.CreateCounter<long>(
        "sharpi.prefault.failures", "{region}", "Regions or parts of regions that could not be prefaulted.");

    internal static void Record(string label, PrefaultResult result)
    {
        var tags = new TagList { { "label", label }, { "method", PrefaultMethodNames.Of(result.Method) } };
        if (!result.Ran)
        {
            Skips.Add(1, tags);
            return;
        }

        BytesPrefaulted.Add(result.Bytes, tags);
        BytesAlreadyResident.Add(result.BytesAlreadyResident, tags);
        Duration.Record(result.Elapsed.TotalSeconds, tags);
        if (result.Failures.Count > 0)
        {
            Failures.Add(result.Failures.Count, tags);
        }
    }
}
