using System.Diagnostics.CodeAnalysis;
using System.Text.Json;

namespace Sharpi.Prefault;

/// <summary>Reads the <c>weight_map</c> (tensor name to shard file beside it) of a sharded safetensors model's index.</summary>
internal static class SafetensorsIndexReader
{
    internal const long MaxIndexBytes = 100L << 20;

    /// <summary>The one read of a shard index, for the library and the tool.</summary>
    /// <exception cref="ModelFormatException">The index is larger than <see cref="MaxIndexBytes"/> or malformed.</exception>
    /// <exception cref="IOException">The index cannot be opened or read.</exception>
    internal static List<(string Tensor, string Shard)> Read(string indexPath)
    {
        FileStatus.ThrowIfNotRegular(indexPath);
        byte[] content;
        using (FileStream stream = FileOpener.OpenReadStream(indexPath, bufferSize: 1, FileOptions.SequentialScan))
        {
            if (stream.Length > MaxIndexBytes)
            {
                ThrowHelper.ThrowModelFormat(indexPath, 0, $"the index is {stream.Length} bytes, more than the {MaxIndexBytes} this reader accepts.");
            }

            content = new byte[stream.Length];
            stream.ReadExactly(content);
        }

        return Parse(content, indexPath);
    }

    /// <summary>The full paths of the shards <paramref name="map"/> names, once each, in the order the index first names them.</summary>
    internal static List<string> ShardPaths(List<(string Tensor, string Shard)> map, string indexPath)
    {
        string directory = Path.GetDirectoryName(Path.GetFullPath(indexPath)) ?? string.Empty;
        var seen = new HashSet<string>(StringComparer.Ordinal);
        var paths = new List<string>();
        foreach ((_, string shard) in map)
        {
            if (seen.Add(shard))
            {
                paths.Add(Path.Combine(directory, shard));
            }
        }

        return paths;
    }

    /// <summary>Parses the index JSON into (tensor, shard) pairs; shard names must be plain file names.</summary>
    internal static List<(string Tensor, string Shard)> Parse(ReadOnlySpan<byte> content, string path)
    {
        var map = new List<(string, string)>();
        var names = new HashSet<string>(StringComparer.Ordinal);
        var json = new Utf8JsonReader(content);
        bool sawWeightMap = false;
        try
        {
            if (!json.Read() || json.TokenType != JsonTokenType.StartObject)
            {
                Fail(path, json.TokenStartIndex, "the index must be a JSON object.");
            }

            while (json.Read() && json.TokenType == JsonTokenType.PropertyName)
            {
                bool isWeightMap = json.ValueTextEquals("weight_map"u8);
                json.Read();
                if (!isWeightMap)
                {
                    json.Skip();
                    continue;
                }

                if (sawWeightMap || json.TokenType != JsonTokenType.StartObject)
                {
                    Fail(path, json.TokenStartIndex, "weight_map must appear once, as an object of tensor name -> shard file name.");
                }

                sawWeightMap = true;
                while (json.Read() && json.TokenType == JsonTokenType.PropertyName)
                {
                    long at = json.TokenStartIndex;
                    string tensor = json.GetString()!;
                    if (!json.Read() || json.TokenType != JsonTokenType.String)
                    {
                        Fail(path, json.TokenStartIndex, $"weight_map['{tensor}'] must be a shard file name string.");
                    }

                    string shard = json.GetString()!;
                    if (shard.Length == 0 || shard != Path.GetFileName(shard) || shard is "." or ".."
                        || shard.Contains('/', StringComparison.Ordinal) || shard.Contains('\\', StringComparison.Ordinal))
                    {
                        // A shard must sit beside the index: a path here could point the reader anywhere on disk.
                        Fail(path, json.TokenStartIndex, $"weight_map['{tensor}'] names '{shard}', which is not a plain file name beside the index.");
                    }

                    if (!names.Add(tensor))
                    {
                        Fail(path, at, $"weight_map lists tensor '{tensor}' twice.");
                    }

                    map.Add((tensor, shard));
                }
            }

            if (json.TokenType != JsonTokenType.EndObject || json.Read())
            {
                Fail(path, json.TokenStartIndex, "the index JSON is malformed.");
            }
        }
        catch (JsonException e)
        {
            ThrowHelper.ThrowModelFormat(path, json.BytesConsumed, $"the index is not valid JSON: {e.Message}", e);
        }
        catch (InvalidOperationException e)
        {
            ThrowHelper.ThrowModelFormat(path, json.TokenStartIndex, $"the index holds an invalid value: {e.Message}", e);
        }

        if (!sawWeightMap)
        {
            Fail(path, 0, "the index has no weight_map.");
        }

        return map;
    }

    [DoesNotReturn]
    private static void Fail(string path, long offset, string detail) => ThrowHelper.ThrowModelFormat(path, offset, detail);
}
