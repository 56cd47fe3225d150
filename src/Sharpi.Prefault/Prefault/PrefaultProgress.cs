namespace Sharpi.Prefault;

/// <summary>Progress of a running prefault, reported at most about ten times a second and once at the end.</summary>
/// <param name="bytesDone">Bytes swept so far.</param>
/// <param name="bytesTotal">Bytes the sweep will cover.</param>
/// <param name="label">The run's <see cref="PrefaultOptions.Label"/>.</param>
public readonly struct PrefaultProgress(long bytesDone, long bytesTotal, string label)
{
    /// <summary>Bytes swept so far.</summary>
    public long BytesDone { get; } = bytesDone;

    /// <summary>Bytes the sweep will cover.</summary>
    public long BytesTotal { get; } = bytesTotal;

    /// <summary>The run's <see cref="PrefaultOptions.Label"/>.</summary>
    public string Label { get; } = label;

    /// <summary>Fraction done, 0 to 1 (1 when there is nothing to do).</summary>
    public double Fraction => BytesTotal <= 0 ? 1.0 : (double)BytesDone / BytesTotal;
}
