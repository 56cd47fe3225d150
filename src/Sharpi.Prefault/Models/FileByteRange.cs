namespace Sharpi.Prefault;

/// <summary>A byte range of one file: what a tool reads, advises or measures for a tensor selection.</summary>
/// <param name="filePath">The file (a shard, for sharded models).</param>
/// <param name="offset">First byte of the range.</param>
/// <param name="length">Length in bytes.</param>
public readonly struct FileByteRange(string filePath, long offset, long length)
{
    /// <summary>The file (a shard, for sharded models).</summary>
    public string FilePath { get; init; } = filePath;

    /// <summary>First byte of the range.</summary>
    public long Offset { get; init; } = offset;

    /// <summary>Length in bytes.</summary>
    public long Length { get; init; } = length;

    /// <summary>One past the range's last byte.</summary>
    public long End => Offset + Length;
}
