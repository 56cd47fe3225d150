using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>One repetition's warm request (<see cref="WarmRequest"/>), with the pass (device and read-ahead) it ran in.</summary>
internal readonly record struct WarmSample(int? ReadAheadKb, double Seconds, string? Device = null)
{
    internal RunPass Pass => new(Device, ReadAheadKb);

    /// <summary>The median per pass, e.g. "0.041 s at read_ahead_kb 128, 0.043 s at 8192".</summary>
    internal static string Describe(IReadOnlyList<WarmSample> warm) =>
        string.Join(", ", warm.GroupBy(static w => w.Pass).Select(static g =>
            ResultTable.Seconds(Statistics.Median(g.Select(static w => w.Seconds))) + " s" +
            (g.Key == default ? string.Empty : " at " + g.Key.Describe())));
}
