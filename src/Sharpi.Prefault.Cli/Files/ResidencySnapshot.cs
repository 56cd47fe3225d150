using System.Text.Json;

namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// Which pages of each file were resident before <c>resident</c> read anything from it: reading a model's header (and
/// sniffing a file's magic) brings pages into the cache, so the figures are taken first, per file, and the report is
/// made from them alone. Nothing read afterwards (a header of any size, whatever read-ahead or a large folio added) is
/// counted. A sharded index's shards are found from its weight_map and measured before their headers are read.
/// </summary>
internal sealed class ResidencySnapshot
{
    /// <summary>An index larger than this is left to the index reader to reject; its shards are then measured when reported.</summary>
    private const long MaxIndexBytes = 64L << 20;

    private readonly Dictionary<string, ResidentPages> _before = new(StringComparer.Ordinal);

    /// <summary>Measures <paramref name="path"/> (and, for a shard index, its shards); files that cannot be read are skipped.</summary>
    public void Take(string path)
    {
        try
        {
            if (ModelFiles.IsShardIndex(path))
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

    internal static List<string> Shards(string indexPath)
    {
        var shards = new List<string>();
        if (PathCheck.Of(indexPath).Kind != FileKind.Regular || new FileInfo(indexPath).Length > MaxIndexBytes)
        {
            return shards;
        }

        using JsonDocument index = JsonDocument.Parse(File.ReadAllBytes(indexPath));
        if (!index.RootElement.TryGetProperty("weight_map", out JsonElement map) || map.ValueKind != JsonValueKind.Object)
        {
            return shards;
        }

        string directory = Path.GetDirectoryName(Path.GetFullPath(indexPath)) ?? string.Empty;
        foreach (JsonProperty entry in map.EnumerateObject())
        {
            if (entry.Value.ValueKind == JsonValueKind.String && entry.Value.GetString() is string shard && !shards.Contains(Path.Combine(directory, shard)))
            {
                shards.Add(Path.Combine(directory, shard));
            }
        }

        return shards;
    }
}
