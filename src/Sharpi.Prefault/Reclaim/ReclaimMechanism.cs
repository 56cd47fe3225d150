namespace Sharpi.Prefault;

/// <summary>How <see cref="MmapReclaim"/> takes pages out of the process (Linux <c>madvise</c> advice).</summary>
public enum ReclaimMechanism
{
    /// <summary>
    /// <c>MADV_PAGEOUT</c> (Linux 5.4+), the default: never discards data, whatever the addresses hold when the kernel
    /// gets there, so a region the program remaps while the call runs (an engine reusing a view's addresses for new
    /// memory) keeps every byte it wrote.
    /// </summary>
    PageOut = 0,

    /// <summary>
    /// <c>MADV_DONTNEED</c>: drops every page of the regions from the process, wherever else it is mapped and whoever
    /// owns the file.
    /// </summary>
    DontNeed = 1,
}
