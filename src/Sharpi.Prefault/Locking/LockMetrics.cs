using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Sharpi.Prefault;

/// <summary>
/// The counter <c>sharpi.lock.size</c> (By): bytes asked to be locked, by <c>sharpi.prefault.outcome</c> (<c>locked</c>,
/// <c>refused</c>, <c>over_budget</c>, <c>already_locked</c>) and <c>sharpi.prefault.label</c>.
/// </summary>
internal static class LockMetrics
{
    internal const string Locked = "locked";
    internal const string Refused = "refused";
    internal const string OverBudget = "over_budget";
    internal const string AlreadyLocked = "already_locked";

    private static readonly Counter<long> Size = SharpiMeter.Meter.CreateCounter<long>(
        "sharpi.lock.size", "By", "Bytes asked to be locked in memory, by outcome.");

    internal static void Record(string label, long locked, long refused, long overBudget, long alreadyLocked)
    {
        SharpiMeter.AddBytes(Size, label, Locked, locked);
        SharpiMeter.AddBytes(Size, label, Refused, refused);
        SharpiMeter.AddBytes(Size, label, OverBudget, overBudget);
        SharpiMeter.AddBytes(Size, label, AlreadyLocked, alreadyLocked);
    }
}
