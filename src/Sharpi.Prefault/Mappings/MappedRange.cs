namespace Sharpi.Prefault;

/// <summary>An address range mapping part of a file, and the file offset at its start (-1: unknown, Windows).</summary>
internal readonly record struct MappedRange(nint Start, nint End, long FileOffset)
{
    internal long Length => End - Start;

    internal bool HasFileOffset => FileOffset >= 0;

    /// <summary>True when <paramref name="next"/> continues this range in address and offset.</summary>
    internal bool IsContinuedBy(MappedRange next) =>
        next.Start == End && HasFileOffset && next.FileOffset == FileOffset + Length;
}
