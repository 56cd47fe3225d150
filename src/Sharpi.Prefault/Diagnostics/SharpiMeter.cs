using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Sharpi.Prefault;

/// <summary>
/// The library's one meter, <c>Sharpi.Prefault</c>: OpenTelemetry users see every feature's instruments with
/// <c>.AddMeter("Sharpi.Prefault")</c>. Each feature declares its own instruments on it, with the attributes here.
/// </summary>
internal static class SharpiMeter
{
    internal const string Name = "Sharpi.Prefault";

    /// <summary>The options' label (the engine or model name).</summary>
    internal const string LabelAttribute = "sharpi.prefault.label";

    /// <summary>How the pages were brought in (<c>populate</c>, <c>touch</c>, <c>hint</c>, <c>none</c>).</summary>
    internal const string MethodAttribute = "sharpi.prefault.method";

    /// <summary>What happened: each instrument documents its values.</summary>
    internal const string OutcomeAttribute = "sharpi.prefault.outcome";

    internal static readonly Meter Meter = new(Name, typeof(SharpiMeter).Assembly.GetName().Version?.ToString());

    /// <summary>Adds <paramref name="bytes"/> under a label and an outcome; nothing for 0.</summary>
    internal static void AddBytes(Counter<long> counter, string label, string outcome, long bytes)
    {
        if (bytes > 0)
        {
            counter.Add(bytes, new TagList { { LabelAttribute, label }, { OutcomeAttribute, outcome } });
        }
    }
}
