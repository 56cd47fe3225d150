namespace Sharpi.Prefault;

/// <summary>How <see cref="MmapReclaim"/> takes pages out of the process (Linux <c>madvise</c> advice).</summary>
public enum ReclaimMechanism
{
    /// <summary>
    /// <c>MADV_PAGEOUT</c> (Linux 5.4+), the default: never discards data, whatever the addresses hold when the kernel
    /// gets there, so a region the program remaps while the call runs (an engine reusing a view's addresses for new
    /// memory) keeps every byte it wrote. The kernel takes a clean file page out of the process only when the page is
    /// mapped nowhere else (not by another view, not by another process) and the process owns the file or may write it
    /// (or holds <c>CAP_FOWNER</c>); pages it keeps are reported in <see cref="ReclaimResult.Skipped"/>. A page it takes
    /// may leave the page cache too, so a later read can go to disk. Slower: the call costs 20-100 ms per GiB, against
    /// under 5 ms for <see cref="DontNeed"/> (docs/reclaim-and-lock.md).
    /// </summary>
    PageOut = 0,

    /// <summary>
    /// <c>MADV_DONTNEED</c>: drops every page of the regions from the process, wherever else it is mapped and whoever
    /// owns the file. The caller promises that no thread remaps the regions while the call runs: the mappings are
    /// checked first, and memory that replaces a view between the check and the call (mmap with <c>MAP_FIXED</c>)
    /// would be zeroed, with what was written to it.
    /// </summary>
    DontNeed = 1,
}
