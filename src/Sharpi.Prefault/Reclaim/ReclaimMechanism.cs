namespace Sharpi.Prefault;

/// <summary>How <see cref="MmapReclaim"/> takes pages out of the process (Linux <c>madvise</c> advice).</summary>
public enum ReclaimMechanism
{
    /// <summary>
    /// <c>MADV_PAGEOUT</c> (Linux 5.4+), the default: never discards data, even where the program remaps the regions
    /// while the call runs.
    /// </summary>
    PageOut = 0,

    /// <summary>
    /// <c>MADV_DONTNEED</c>: drops every page of the regions from the process, wherever else it is mapped and whoever
    /// owns the file.
    /// </summary>
    DontNeed = 1,
}
