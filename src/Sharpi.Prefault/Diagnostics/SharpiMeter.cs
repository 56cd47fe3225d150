using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Reflection;

namespace Sharpi.Prefault;

internal static class SharpiMeter
{
    internal const string Name = "Sharpi.Prefault";

    internal const string LabelAttribute = "sharpi.prefault.label";

    /// <summary>Values: populate, touch, hint, none.</summary>
    internal const string MethodAttribute = "sharpi.prefault.method";

    internal const string OutcomeAttribute = "sharpi.prefault.outcome";

    private const string MetricsAssembly = "System.Diagnostics.DiagnosticSource,";

    private static volatile bool s_observable;

    internal static Meter Meter => MeterHolder.Meter;

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

    /// <summary>Nothing for 0 bytes.</summary>
    internal static void AddBytes(Counter<long> counter, string label, string outcome, long bytes)
    {
        if (bytes > 0)
        {
            counter.Add(bytes, new TagList { { LabelAttribute, label }, { OutcomeAttribute, outcome } });
        }
    }

    /// <summary>So that asking <see cref="IsObservable"/> never creates the meter.</summary>
    private static class MeterHolder
    {
        internal static readonly Meter Meter = new(Name, typeof(SharpiMeter).Assembly.GetName().Version?.ToString());
    }
}
