using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Reflection;

namespace Sharpi.Prefault;

/// <summary>
/// The library's one meter, <c>Sharpi.Prefault</c>: OpenTelemetry users see every feature's instruments with
/// <c>.AddMeter("Sharpi.Prefault")</c>.
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

    private const string MetricsAssembly = "System.Diagnostics.DiagnosticSource,";

    private static volatile bool s_observable;

    /// <summary>The meter, created on first use: only once a measurement can be observed (see <see cref="IsObservable"/>).</summary>
    internal static Meter Meter => MeterHolder.Meter;

    /// <summary>Whether anything can observe a measurement now.</summary>
    internal static bool IsObservable
    {
        get
        {
            if (s_observable)
            {
                return true;
            }

            foreach (Assembly assembly in AppDomain.CurrentDomain.GetAssemblies())
            {
                if (assembly.FullName?.StartsWith(MetricsAssembly, StringComparison.Ordinal) == true)
                {
                    s_observable = true;
                    return true;
                }
            }

            return false;
        }
    }

    /// <summary>Adds <paramref name="bytes"/> under a label and an outcome; nothing for 0.</summary>
    internal static void AddBytes(Counter<long> counter, string label, string outcome, long bytes)
    {
        if (bytes > 0)
        {
            counter.Add(bytes, new TagList { { LabelAttribute, label }, { OutcomeAttribute, outcome } });
        }
    }

    /// <summary>Holds the meter apart, so that asking <see cref="IsObservable"/> never creates it.</summary>
    private static class MeterHolder
    {
        internal static readonly Meter Meter = new(Name, typeof(SharpiMeter).Assembly.GetName().Version?.ToString());
    }
}
