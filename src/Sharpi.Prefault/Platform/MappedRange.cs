namespace Sharpi.Prefault;

/// <summary>Addresses mapping part of file <see cref="File"/> (the caller's index) from <see cref="FileOffset"/> (-1: unknown, Windows).</summary>
internal readonly record struct MappedRange(nint Start, nint End, int File, long FileOffset) : IAddressRange
{
    internal long Length => End - Start;

    internal bool HasFileOffset => FileOffset >= 0;

    /// <summary>True when <paramref name="next"/> continues this range in file, address and offset.</summary>
    internal bool IsContinuedBy(MappedRange next) =>
        next.Start == End && next.File == File && HasFileOffset && next.FileOffset == FileOffset + Length;
}
