namespace Sharpi.Prefault;

public static partial class MmapPrefault
{
    /// <summary>Prefaults the regions (placeholder while the sweep lands).</summary>
    /// <param name="regions">The regions.</param>
    /// <param name="options">The options.</param>
    /// <returns>The result.</returns>
    public static PrefaultResult Run(IReadOnlyList<PrefaultRegion> regions, PrefaultOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(regions);
        _ = options;
        return new PrefaultResult { Ran = false, Reason = "not yet implemented" };
    }
}
