using Sharpi.Prefault.Cli.Commands;

namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// One file a command works on: a plain file (whole), or one file of a model with its selected tensors.
/// A sharded model's index resolves to one target per shard.
/// </summary>
/// <param name="DisplayPath">The path as the user wrote it (a shard: beside the index the user named).</param>
/// <param name="FullPath">The absolute path.</param>
/// <param name="Length">The file's length in bytes.</param>
/// <param name="Index">The model's tensor index; null for a plain file.</param>
/// <param name="Selection">The tensors the command line selected (all when it named none).</param>
/// <param name="Tensors">The selected tensors in this file, in file order; null for a plain file.</param>
internal sealed record FileTarget(string DisplayPath, string FullPath, long Length, TensorIndex? Index, TensorSelection Selection, IReadOnlyList<TensorInfo>? Tensors)
{
    public bool IsModel => Tensors is not null;

    /// <summary>True when only some tensors are wanted, so the command works on their ranges rather than the whole file.</summary>
    public bool UsesTensorRanges(TensorFilter filter) => IsModel && filter.NamesTensors;

    /// <summary>The selected tensors' byte ranges in this file, touching tensors merged.</summary>
    public IEnumerable<FileByteRange> TensorRanges()
    {
        if (Index is null)
        {
            yield break;
        }

        foreach (FileByteRange range in Index.Ranges(Selection))
        {
            if (range.FilePath == FullPath)
            {
                yield return range;
            }
        }
    }
}
