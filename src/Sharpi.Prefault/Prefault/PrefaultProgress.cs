namespace Sharpi.Prefault;

/// <summary>Progress of a running prefault, reported at most about ten times a second and once at the end.</summary>
/// <param name="BytesDone">Bytes swept so far.</param>
/// <param name="BytesTotal">Bytes the sweep will cover.</param>
/// <param name="Label">The run's <see cref="PrefaultOptions.Label"/>.</param>
public readonly record struct PrefaultProgress(long BytesDone, long BytesTotal, string Label)
{
    /// <summary>Fraction done, 0 to 1 (1 when there is nothing to do).</summary>
    public double Fraction => BytesTotal <= 0 ? 1.0 : (double)BytesDone / BytesTotal;
}
