namespace Sharpi.Prefault;

/// <summary>
/// The trial rule (docs/mechanisms.md): which of a run's candidate mechanisms, given in the order the static signals
/// suggest, sweeps the rest of the set, decided from the cost per byte each one measures on a few chunks at the start
/// of the run. The costs come through a seam (<see cref="Choose"/>'s measure), so the rule is tested with injected
/// rates. A measure times a chunk's whole cost, including the first access the engine would otherwise pay.
/// </summary>
/// <remarks>Not yet called by the sweep: the candidates' chunk routines are still decided in <see cref="SweepMechanism.Choose"/>.</remarks>
internal static class MechanismTrial
{
    /// <summary>The most of a set the alternatives' trials may take together, where the first guess was right.</summary>
    internal const double BudgetShare = 0.03;

    /// <summary>A candidate replaces the first guess only where it costs less than this share below the first's cost (noise).</summary>
    internal const double Noise = 0.10;

    /// <summary>An alternative that costs this many times the first guess on its first chunk gets no more trial chunks.</summary>
    internal const double ClearlySlower = 1.5;

    /// <summary>
    /// The trial chunks each candidate gets in a set of <paramref name="setChunks"/> chunks: the alternatives together
    /// take at most <see cref="BudgetShare"/> of the set, so 0 (no trials: the first candidate runs) where that is less
    /// than a chunk each, or where there is only one candidate.
    /// </summary>
    internal static int TrialChunks(long setChunks, int candidates) =>
        candidates < 2 || setChunks <= 0 ? 0 : (int)Math.Min(int.MaxValue, (long)(setChunks * BudgetShare / (candidates - 1)));

    /// <summary>
    /// Runs the trials and returns the candidate that sweeps the rest: the first candidate's chunks first, then each
    /// alternative's, stopping an alternative after one chunk that costs <see cref="ClearlySlower"/> times the first's.
    /// </summary>
    /// <param name="candidates">How many candidates, in the static order (the first is the guess).</param>
    /// <param name="setChunks">The chunks of the set.</param>
    /// <param name="measure">Sweeps one trial chunk with candidate <c>c</c> (its <c>n</c>th) and returns its cost, in nanoseconds a byte.</param>
    /// <param name="rates">Each candidate's mean cost measured, NaN where it was not tried; for the result and the Debug log.</param>
    internal static int Choose(int candidates, long setChunks, Func<int, int, double> measure, out double[] rates)
    {
        rates = new double[candidates];
        Array.Fill(rates, double.NaN);
        int each = TrialChunks(setChunks, candidates);
        if (each == 0)
        {
            return 0;
        }

        for (int c = 0; c < candidates; c++)
        {
            double sum = 0;
            int n = 0;
            while (n < each)
            {
                sum += measure(c, n);
                n++;
                if (c > 0 && n == 1 && sum > rates[0] * ClearlySlower)
                {
                    break;
                }
            }

            rates[c] = sum / n;
        }

        return Pick(rates);
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
}
