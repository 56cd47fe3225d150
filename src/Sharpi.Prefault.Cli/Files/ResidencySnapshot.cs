using System.Text.Json;

namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// Which pages of each file were resident before <c>resident</c> read anything from it: reading a model's header (and
/// sniffing a file's magic) brings pages into the cache, so the figures are taken first, per file, and the report is
/// made from them alone.
/// </summary>
internal sealed class ResidencySnapshot
{
    private readonly Dictionary<string, ResidentPages> _before = new(StringComparer.Ordinal);

    /// <summary>Measures <paramref name="path"/> (and, for a shard index, its shards); files that cannot be read are skipped.</summary>
    public void Take(string path)
    {
        try
        {
            if (TensorFormats.IsShardIndex(path))
            {
                foreach (string shard in Shards(path))
                {
                    TakeOne(shard);
                }
            }
            else
            {
                TakeOne(path);
            }
        }
        catch (Exception e) when (FileErrors.IsExpected(e) || e is JsonException or ArgumentException)
        {
            // Reading the model reports the problem in its own words; a file without a snapshot is measured when reported.
        }
    }

    /// <summary>
    /// The file's pages as they were before anything was read from it; measured now when no snapshot was taken (or the
    /// file changed length since, so the snapshot is of another file).
    /// </summary>
    public ResidentPages Of(FileMapping mapping) =>
        _before.TryGetValue(mapping.Target.FullPath, out ResidentPages? before) && before.Length == mapping.Target.Length
            ? before
            : ResidentPages.Measure(mapping);

    private void TakeOne(string path)
    {
        if (PathCheck.Of(path).Kind != FileKind.Regular)
        {
            return;
        }

        string full = Path.GetFullPath(path);
        if (_before.ContainsKey(full))
        {
            return;
        }

        var target = new FileTarget(path, full, new FileInfo(full).Length, null, TensorSelection.All, null);
        using FileMapping mapping = FileMapping.Open(target);
        _before[full] = ResidentPages.Measure(mapping);
    }

    /// <summary>The shards a sharded model's index names (the library's one read of an index); none where it cannot be read.</summary>
    internal static List<string> Shards(string indexPath)
    {
        try
        {
            return SafetensorsIndexReader.ShardPaths(SafetensorsIndexReader.Read(indexPath), indexPath);
        }
        catch (Exception e) when (e is ModelFormatException or IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }
}
