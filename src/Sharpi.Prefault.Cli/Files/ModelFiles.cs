namespace Sharpi.Prefault.Cli.Files;

/// <summary>Tells model files from plain ones cheaply, before the tensor table is read.</summary>
internal static class ModelFiles
{
    /// <summary>
    /// A GGUF or safetensors name, or a sharded model's index (<c>model.safetensors.index.json</c>). Other JSON
    /// (<c>config.json</c>, <c>tokenizer.json</c> beside the weights) is a plain file.
    /// </summary>
    public static bool HasModelExtension(string path) =>
        path.EndsWith(".gguf", StringComparison.OrdinalIgnoreCase)
        || path.EndsWith(".safetensors", StringComparison.OrdinalIgnoreCase)
        || IsShardIndex(path);

    public static bool IsShardIndex(string path) => path.EndsWith(".index.json", StringComparison.OrdinalIgnoreCase);

    /// <summary>A model extension, or the GGUF magic in the first four bytes (llama.cpp's files often have no extension).</summary>
    public static bool LooksLikeModel(string path)
    {
        if (HasModelExtension(path))
        {
            return true;
        }

        if (path.EndsWith(".json", StringComparison.OrdinalIgnoreCase))
        {
            return false;
        }

        // RandomAccess turns read-ahead off, so sniffing the magic does not pull in pages `resident` is about to measure.
        Span<byte> magic = stackalloc byte[4];
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1, FileOptions.RandomAccess);
        return stream.ReadAtLeast(magic, magic.Length, throwOnEndOfStream: false) == 4 && magic.SequenceEqual("GGUF"u8);
    }
}
