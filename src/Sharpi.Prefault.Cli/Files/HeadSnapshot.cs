using System.Text.Json;

namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// Which pages at the head of model files were resident before <c>resident</c> read their headers, so the pages its
/// own reads brought in (the header, and whatever read-ahead or a large folio added) are not reported as cached.
/// Taken per file before anything is read from it; a sharded index's shards are found from its weight_map.
/// </summary>
internal sealed class HeadSnapshot
{
    /// <summary>How far into a file the snapshot reaches: past the largest headers (a big vocabulary is megabytes).</summary>
    internal const long HeadBytes = 64L << 20;

    private readonly Dictionary<string, bool[]> _before = new(StringComparer.Ordinal);

    /// <summary>Snapshots <paramref name="path"/> (and, for a shard index, its shards); files that cannot be read are skipped.</summary>
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
            // Reading the model reports the problem in its own words; no snapshot means nothing is discounted.
        }
    }

    /// <summary>
    /// The bytes of <paramref name="mapping"/>'s head that are resident now but were not at the snapshot, and a function
    /// giving the same for any byte range (a tensor). Zero when no snapshot was taken.
    /// </summary>
    public Func<long, long, long> BroughtIn(FileMapping mapping)
    {
        if (!_before.TryGetValue(mapping.Target.FullPath, out bool[]? before))
        {
            return static (_, _) => 0;
        }

        bool[] now = Measure(mapping, before.Length);
        long page = Environment.SystemPageSize;
        long fileLength = mapping.Target.Length;
        return (offset, length) =>
        {
            long total = 0;
            long end = offset + length;
            for (long p = offset / page; p < before.Length && p * page < end; p++)
            {
                if (!before[p] && now[p])
                {
                    long from = Math.Max(offset, p * page);
                    long to = Math.Min(Math.Min(end, (p + 1) * page), fileLength);
                    total += Math.Max(0, to - from);
                }
            }

            return total;
        };
    }

    private void TakeOne(string path)
    {
        if (PathKinds.Of(path) != PathKind.Regular)
        {
            return;
        }

        string full = Path.GetFullPath(path);
        var target = new FileTarget(path, full, new FileInfo(full).Length, null, TensorSelection.All, null);
        using FileMapping mapping = FileMapping.Open(target);
        long pages = (Math.Min(target.Length, HeadBytes) + Environment.SystemPageSize - 1) / Environment.SystemPageSize;
        _before[full] = Measure(mapping, (int)pages);
    }

    private static bool[] Measure(FileMapping mapping, int pages)
    {
        long page = Environment.SystemPageSize;
        long length = mapping.Target.Length;
        PrefaultRegion whole = mapping.Whole();
        var regions = new PrefaultRegion[(int)Math.Min(pages, (length + page - 1) / page)];
        for (int i = 0; i < regions.Length; i++)
        {
            regions[i] = new PrefaultRegion(whole.Address + (nint)(i * page), Math.Min(page, length - (i * page)));
        }

        var resident = new bool[pages];
        if (regions.Length == 0)
        {
            return resident;
        }

        ResidencyInfo[] measured = Residency.MeasureEach(regions);
        for (int i = 0; i < measured.Length; i++)
        {
            resident[i] = measured[i].ResidentBytes > 0;
        }

        return resident;
    }

    private static List<string> Shards(string indexPath)
    {
        var shards = new List<string>();
        if (PathKinds.Of(indexPath) != PathKind.Regular || new FileInfo(indexPath).Length > 64L << 20)
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
