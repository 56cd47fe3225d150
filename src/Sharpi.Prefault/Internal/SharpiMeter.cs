using System.Diagnostics.Metrics;

namespace Sharpi.Prefault;

/// <summary>
/// The library's one meter, <c>Sharpi.Prefault</c>: OpenTelemetry users see every feature's instruments with
/// <c>.AddMeter("Sharpi.Prefault")</c>. Each feature declares its own instruments on it.
/// </summary>
internal static class SharpiMeter
{
    internal const string Name = "Sharpi.Prefault";

    internal static readonly Meter Meter = new(Name, typeof(SharpiMeter).Assembly.GetName().Version?.ToString());
}
