using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Sharpi.Prefault;

/// <summary>
/// The lock and reclaim instruments, on the same <c>Sharpi.Prefault</c> meter name as the prefault's, so one
/// <c>.AddMeter("Sharpi.Prefault")</c> shows all three. Attributes: <c>sharpi.prefault.label</c> (the options' label)
/// and <c>sharpi.prefault.outcome</c> (what happened to the bytes).
/// </summary>
internal static class LockReclaimMetrics
{
    internal const string LabelAttribute = "sharpi.prefault.label";
    internal const string OutcomeAttribute = "sharpi.prefault.outcome";

    /// <summary>Outcomes of <c>sharpi.lock.bytes</c>: locked, refused by the OS, or left out by the RAM gate.</summary>
    internal const string Locked = "locked";
    internal const string Refused = "refused";
    internal const string OverBudget = "over_budget";

    /// <summary>Outcomes of <c>sharpi.reclaim.bytes</c>: released, kept resident (locked, partial pages, failed calls), or a refused call.</summary>
    internal const string Released = "released";
    internal const string Kept = "kept";

    private static readonly Meter Meter = new(PrefaultMetrics.MeterName, typeof(LockReclaimMetrics).Assembly.GetName().Version?.ToString());

    private static readonly Counter<long> LockBytes = Meter.CreateCounter<long>(
        "sharpi.lock.bytes", "By", "Bytes asked to be locked in memory, by outcome.");

    private static readonly Counter<long> ReclaimBytes = Meter.CreateCounter<long>(
        "sharpi.reclaim.bytes", "By", "Bytes asked to be released from memory, by outcome.");

    internal static void RecordLock(string label, long locked, long refused, long overBudget)
    {
        Add(LockBytes, label, Locked, locked);
        Add(LockBytes, label, Refused, refused);
        Add(LockBytes, label, OverBudget, overBudget);
    }

    internal static void RecordReclaim(string label, long released, long kept, long refused)
    {
        Add(ReclaimBytes, label, Released, released);
        Add(ReclaimBytes, label, Kept, kept);
        Add(ReclaimBytes, label, Refused, refused);
    }

    private static void Add(Counter<long> counter, string label, string outcome, long bytes)
    {
        if (bytes > 0)
        {
            counter.Add(bytes, new TagList { { LabelAttribute, label }, { OutcomeAttribute, outcome } });
        }
    }
}
