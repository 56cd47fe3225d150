namespace Sharpi.Prefault;

/// <summary>A byte range of one file: what a tool reads, advises or measures for a tensor selection.</summary>
/// <param name="FilePath">The file (a shard, for sharded models).</param>
/// <param name="Offset">First byte of the range.</param>
/// <param name="Length">Length in bytes.</param>
public readonly record struct FileByteRange(string FilePath, long Offset, long Length)
{
    /// <summary>One past the range's last byte.</summary>
    public long End => Offset + Length;
}
