namespace Sharpi.Prefault.Bench;

/// <summary>A byte range of the weights file.</summary>
internal readonly record struct ByteRange(long Offset, long Length)
{
    internal long End => Offset + Length;
}
