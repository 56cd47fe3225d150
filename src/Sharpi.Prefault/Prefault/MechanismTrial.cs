using System.Diagnostics;

namespace Sharpi.Prefault;

/// <summary>The trial rule, pure so tests inject the costs: which candidate sweeps the rest, and whether it is touched.</summary>
internal static class MechanismTrial
{
    /// <summary>The alternatives' units' share of a set, so a right first guess costs little.</summary>
    internal const double BudgetShare = 0.01;

    /// <summary>Beating the first guess by less is noise.</summary>
    internal const double Noise = 0.10;

    /// <summary>Tests: this async flow's budget share; its runs reuse no earlier choice.</summary>
    internal static readonly AsyncLocal<double?> BudgetShareOverride = new();

    /// <summary>A 2 MiB folio.</summary>
    internal const long UnitBytes = 2L * 1024 * 1024;

    internal const int MinUnitsEach = 4;

    internal const int MaxUnitsEach = 16;

    /// <summary>A candidate dearer than the cheapest so far by more than this after its first part is not finished.</summary>
    internal const double StopMargin = 0.5;

    /// <summary>A first access costlier than this times a second pays a host's fault, which the sweep then pays.</summary>
    internal const double FirstTouchFactor = 2.0;

    /// <summary>0 (no trial) for one candidate or fewer than <see cref="MinUnitsEach"/> each.</summary>
    internal static int UnitsEach(long setBytes, int candidates)
    {
        if (candidates < 2 || setBytes <= 0)
        {
            return 0;
        }

        long each = (long)(setBytes * (BudgetShareOverride.Value ?? BudgetShare) / (candidates - 1) / UnitBytes);
        return each < MinUnitsEach ? 0 : (int)Math.Min(each, MaxUnitsEach);
    }

    /// <summary>The units a block sweeps before it may stop: half, and at least two, one for each of two threads.</summary>
    internal static int FirstPart(int unitsInBlock) => Math.Min(unitsInBlock, Math.Max(2, unitsInBlock / 2));

    /// <summary>True where a part's rate is past the cheapest so far by more than <see cref="StopMargin"/>; never before a rate is known.</summary>
    internal static bool StopsEarly(double partRate, double bestRate) =>
        !double.IsNaN(partRate) && !double.IsNaN(bestRate) && partRate > bestRate * (1 + (StopMarginOverride.Value ?? StopMargin));

    /// <summary>Tests: this async flow's stop margin.</summary>
    internal static readonly AsyncLocal<double?> StopMarginOverride = new();

    /// <summary>ns a byte, the engine's first access included; NaN where nothing was swept.</summary>
    internal static double Rate(long bytes, long ticks, double engineNanoseconds) =>
        bytes <= 0 ? double.NaN : ((ticks * (1e9 / Stopwatch.Frequency)) + engineNanoseconds) / bytes;

    /// <summary>Each candidate's <see cref="Rate"/>.</summary>
    internal static double[] Rates(ReadOnlySpan<long> bytes, ReadOnlySpan<long> ticks, ReadOnlySpan<double> engineNanoseconds)
    {
        double[] rates = new double[bytes.Length];
        for (int c = 0; c < rates.Length; c++)
        {
            rates[c] = Rate(bytes[c], ticks[c], engineNanoseconds[c]);
        }

        return rates;
    }

    /// <summary>The cheapest candidate where it beats the first guess by more than <see cref="Noise"/>, else the first; NaN is untried.</summary>
    internal static int Pick(ReadOnlySpan<double> rates)
    {
        int best = 0;
        for (int c = 1; c < rates.Length; c++)
        {
            if (!double.IsNaN(rates[c]) && (double.IsNaN(rates[best]) || rates[c] < rates[best]))
            {
                best = c;
            }
        }

        return best != 0 && !double.IsNaN(rates[0]) && rates[best] >= rates[0] * (1 - Noise) ? 0 : best;
    }

    internal static double ExtraNanoseconds(ReadOnlySpan<double> rates, ReadOnlySpan<long> bytes)
    {
        double extra = 0;
        for (int c = 1; c < rates.Length; c++)
        {
            if (!double.IsNaN(rates[c]) && !double.IsNaN(rates[0]))
            {
                extra += Math.Max(0, rates[c] - rates[0]) * bytes[c];
            }
        }

        return extra;
    }

    internal static bool TouchesAll(ReadOnlySpan<UnitCost> units, ReadOnlySpan<int> candidateOf, int candidate)
    {
        (long first, long second) = TouchTicks(units, candidateOf, candidate);
        return first > 0 && first > second * FirstTouchFactor;
    }

    /// <summary>A candidate's first touch over its second, summed over its units; NaN where none was timed.</summary>
    internal static double FirstTouchRatio(ReadOnlySpan<UnitCost> units, ReadOnlySpan<int> candidateOf, int candidate)
    {
        (long first, long second) = TouchTicks(units, candidateOf, candidate);
        return second == 0 ? double.NaN : (double)first / second;
    }

    private static (long First, long Second) TouchTicks(ReadOnlySpan<UnitCost> units, ReadOnlySpan<int> candidateOf, int candidate)
    {
        long first = 0, second = 0;
        for (int u = 0; u < units.Length; u++)
        {
            if (candidateOf[u] == candidate)
            {
                first += units[u].FirstTouchTicks;
                second += units[u].SecondTouchTicks;
            }
        }

        return (first, second);
    }

    /// <summary>One unit's cost, in Stopwatch ticks.</summary>
    internal readonly record struct UnitCost(long Bytes, long PopulateTicks, long FirstTouchTicks, long SecondTouchTicks);
}
