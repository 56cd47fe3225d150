namespace Sharpi.Prefault;

/// <summary>Which mechanism <see cref="MmapPrefault.Run(IReadOnlyList{PrefaultRegion}, PrefaultOptions?, CancellationToken)"/> may use.</summary>
public enum PrefaultStrategy
{
    /// <summary>The fastest safe mechanism: populate where the kernel supports it, else the touch sweep.</summary>
    Auto = 0,

    /// <summary>Skip populate and always touch, hinted first on macOS and Windows (the portable fallback; useful for comparisons).</summary>
    Touch = 1,

    /// <summary>Only issue the OS read-ahead hint and return; it guarantees nothing is resident.</summary>
    HintOnly = 2,
}
