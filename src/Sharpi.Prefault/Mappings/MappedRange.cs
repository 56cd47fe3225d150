namespace Sharpi.Prefault;

/// <summary>
/// An address range of this process that maps part of a file, and the file offset its first byte maps
/// (-1 where the OS does not tell: Windows).
/// </summary>
internal readonly record struct MappedRange(nint Start, nint End, long FileOffset)
{
    internal long Length => End - Start;

    internal bool HasFileOffset => FileOffset >= 0;

    /// <summary>True when <paramref name="next"/> continues this range in both address and file offset (one mapping the OS listed in pieces).</summary>
    internal bool IsContinuedBy(MappedRange next) =>
        next.Start == End && HasFileOffset && next.FileOffset == FileOffset + Length;
}
