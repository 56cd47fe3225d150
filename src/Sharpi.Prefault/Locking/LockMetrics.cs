using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Sharpi.Prefault;

/// <summary>
/// The lock's instrument on the <c>Sharpi.Prefault</c> meter: <c>sharpi.lock.size</c> (By), the bytes asked to be
/// locked, by <c>sharpi.prefault.outcome</c>: <c>locked</c>, <c>refused</c> by the OS, <c>over_budget</c> (left out
/// by the RAM gate), or <c>already_locked</c> (locked by the process itself, left as it was); with <c>sharpi.prefault.label</c>.
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
