namespace Sharpi.Prefault;

/// <summary>Which mechanism <see cref="MmapPrefault.Run(IReadOnlyList{PrefaultRegion}, PrefaultOptions?, CancellationToken)"/> may use.</summary>
public enum PrefaultStrategy
{
    /// <summary>
    /// The fastest safe mechanism: populate where the kernel supports it, else the touch sweep (after the read-ahead
    /// hint on macOS and Windows, which honour a whole-range hint; on Linux the touch goes without it).
    /// </summary>
    Auto = 0,

    /// <summary>Skip populate and always touch, hinted first on macOS and Windows (the portable fallback; useful for comparisons).</summary>
    Touch = 1,

    /// <summary>
    /// Only issue the read-ahead hint (<c>MADV_WILLNEED</c> / <c>PrefetchVirtualMemory</c>) and return. The kernel
    /// may read some, all or none of the range ahead and maps nothing, so this guarantees nothing.
    /// </summary>
    HintOnly = 2,
}
