using System.Buffers.Binary;

namespace Sharpi.Prefault;

/// <summary>
/// The one place a model file's format is told, for the library, the tool and the benchmarks: a shard index by its name,
/// GGUF by its magic, safetensors by its header or its name (so a malformed one is reported as safetensors).
/// </summary>
internal static class TensorFormats
{
    /// <summary>How many bytes of a file's start detection looks at.</summary>
    internal const int SniffBytes = 9;

    /// <summary>A sharded safetensors model's index, by its name.</summary>
    internal static bool IsShardIndex(string path) => path.EndsWith(".index.json", StringComparison.OrdinalIgnoreCase);

    /// <summary>A name that claims a model, whatever the file holds.</summary>
    internal static bool HasModelName(string path) =>
        path.EndsWith(".gguf", StringComparison.OrdinalIgnoreCase)
        || path.EndsWith(".safetensors", StringComparison.OrdinalIgnoreCase)
        || IsShardIndex(path);

    /// <summary>A model by its name or its first bytes (read with read-ahead off).</summary>
    internal static bool IsModel(string path) => HasModelName(path) || Detect(path) != TensorFormat.Unknown;

    /// <summary>The format from a file's name and first bytes; <see cref="TensorFormat.Unknown"/> for none.</summary>
    internal static TensorFormat Detect(string path, ReadOnlySpan<byte> first, long length)
    {
        if (IsShardIndex(path))
        {
            return TensorFormat.ShardedSafetensors;
        }

        if (path.EndsWith(".json", StringComparison.OrdinalIgnoreCase))
        {
            return TensorFormat.Unknown; // config.json, tokenizer.json: beside the weights, never weights
        }

        if (first.Length >= 4 && BinaryPrimitives.ReadUInt32LittleEndian(first) == GgufReader.Magic)
        {
            return TensorFormat.Gguf;
        }

        return path.EndsWith(".safetensors", StringComparison.OrdinalIgnoreCase) || SafetensorsReader.LooksLikeSafetensors(first[..Math.Min(first.Length, SniffBytes)], length)
            ? TensorFormat.Safetensors
            : TensorFormat.Unknown;
    }

    /// <summary>The format of the file open in <paramref name="stream"/> (seekable; left at its start).</summary>
    internal static TensorFormat Detect(Stream stream, string path)
    {
        Span<byte> first = stackalloc byte[SniffBytes];
        stream.Position = 0;
        int n = stream.ReadAtLeast(first, first.Length, throwOnEndOfStream: false);
        stream.Position = 0;
        return Detect(path, first[..n], stream.Length);
    }

    /// <summary>The format of the file at <paramref name="path"/>, sniffed with read-ahead off so no page comes in.</summary>
    internal static TensorFormat Detect(string path)
    {
        if (IsShardIndex(path))
        {
            return TensorFormat.ShardedSafetensors;
        }

        using FileStream stream = FileOpener.OpenReadStream(path, bufferSize: 1, FileOptions.RandomAccess);
        return Detect(stream, path);
    }
}
