using System.Diagnostics;

namespace Sharpi.Prefault;

/// <summary>
/// The trial rule (docs/mechanisms.md): which of a run's candidate mechanisms, given in the static order, sweeps the
/// rest of the set, decided from what each cost a byte on a block of units at the start of the run, and whether the
/// rest is touched after its populate. A block's cost is its whole cost: the staging, the populate and the first
/// access through the engine's mapping, which the engine pays if the sweep does not. Pure: the costs come in measured
/// (<see cref="TrialSweep"/>), so the rule is tested with injected ones.
/// </summary>
internal static class MechanismTrial
{
    /// <summary>
    /// The most of a set the alternatives' units may take together: small enough that a right first guess costs at
    /// most about 3% of the load even where an alternative costs several times as much a byte, first access included.
    /// </summary>
    internal const double BudgetShare = 0.01;

    /// <summary>A candidate replaces the first guess only where it costs less than this share below the first's cost (noise).</summary>
    internal const double Noise = 0.10;

    /// <summary>Tests: a budget share for the runs of this async flow (and the threads they start), which then reuse no earlier choice.</summary>
    internal static readonly AsyncLocal<double?> BudgetShareOverride = new();

    /// <summary>Bytes of one trial unit: a 2 MiB folio, so a block of a few spreads over the sweep's threads.</summary>
    internal const long UnitBytes = 2L * 1024 * 1024;

    /// <summary>The fewest units a candidate is judged on; a set too small for them takes the first guess untried.</summary>
    internal const int MinUnitsEach = 4;

    /// <summary>The most units a candidate gets, however large the set.</summary>
    internal const int MaxUnitsEach = 16;

    /// <summary>
    /// A first access that costs more than this many times a second one after the populate pays something a second
    /// access does not (a host's fault, a shadow page table entry): then the sweep pays it, in parallel, for the request.
    /// </summary>
    internal const double FirstTouchFactor = 2.0;

    /// <summary>
    /// The units each of <paramref name="candidates"/> gets over a set of <paramref name="setBytes"/>: the alternatives
    /// together take at most <see cref="BudgetShare"/> of the set, no more than <see cref="MaxUnitsEach"/> each, and 0
    /// (no trial: the first candidate runs) where that leaves fewer than <see cref="MinUnitsEach"/> or there is one candidate.
    /// </summary>
    internal static int UnitsEach(long setBytes, int candidates)
    {
        if (candidates < 2 || setBytes <= 0)
        {
            return 0;
        }

        long each = (long)(setBytes * (BudgetShareOverride.Value ?? BudgetShare) / (candidates - 1) / UnitBytes);
        return each < MinUnitsEach ? 0 : (int)Math.Min(each, MaxUnitsEach);
    }

    /// <summary>
    /// Each candidate's cost in nanoseconds a byte: its block's <see cref="Stopwatch"/> ticks, plus what the engine's
    /// first access would still add to the block (<paramref name="engineNanoseconds"/>), over its bytes (NaN where it swept none).
    /// </summary>
    internal static double[] Rates(ReadOnlySpan<long> bytes, ReadOnlySpan<long> ticks, ReadOnlySpan<double> engineNanoseconds)
    {
        double[] rates = new double[bytes.Length];
        for (int c = 0; c < rates.Length; c++)
        {
            rates[c] = bytes[c] <= 0 ? double.NaN : ((ticks[c] * (1e9 / Stopwatch.Frequency)) + engineNanoseconds[c]) / bytes[c];
        }

        return rates;
    }

    /// <summary>
    /// The fastest candidate where it beats the first guess by more than <see cref="Noise"/>; else the first (ties keep
    /// the static order). NaN: not tried.
    /// </summary>
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

    /// <summary>
    /// What the trial cost over sweeping its units with the first guess alone, in nanoseconds: each alternative's bytes
    /// at its rate less the first's (never below 0), from <see cref="Rates"/> and each candidate's bytes.
    /// </summary>
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

    /// <summary>
    /// Whether the rest of the set is touched after its populate with <paramref name="candidate"/>: where its units'
    /// first access cost more than <see cref="FirstTouchFactor"/> times their second.
    /// </summary>
    internal static bool TouchesAll(ReadOnlySpan<UnitCost> units, ReadOnlySpan<int> candidateOf, int candidate)
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

        return first > 0 && first > second * FirstTouchFactor;
    }

    /// <summary>
    /// What one trial unit cost, in <see cref="Stopwatch"/> ticks: its staging and populate, the first access to each of
    /// its pages through the engine's mapping, and the same access again (what the touch costs where there is nothing
    /// left to pay).
    /// </summary>
    internal readonly record struct UnitCost(long Bytes, long PopulateTicks, long FirstTouchTicks, long SecondTouchTicks);
}
