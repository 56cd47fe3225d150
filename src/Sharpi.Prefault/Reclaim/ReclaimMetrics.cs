using System.Diagnostics.Metrics;

namespace Sharpi.Prefault;

/// <summary>
/// The counter <c>sharpi.reclaim.size</c> (By): bytes asked to be released, by <c>sharpi.prefault.outcome</c>
/// (<c>released</c>, <c>kept</c>, <c>refused</c>) and <c>sharpi.prefault.label</c>.
/// </summary>
internal static class ReclaimMetrics
{
    internal const string Released = "released";
    internal const string Kept = "kept";
    internal const string Refused = "refused";

    private static readonly Counter<long> Size = SharpiMeter.Meter.CreateCounter<long>(
        "sharpi.reclaim.size", "By", "Bytes asked to be released from memory, by outcome.");

    internal static void Record(string label, long released, long kept, long refused)
    {
        SharpiMeter.AddBytes(Size, label, Released, released);
        SharpiMeter.AddBytes(Size, label, Kept, kept);
        SharpiMeter.AddBytes(Size, label, Refused, refused);
    }
}
