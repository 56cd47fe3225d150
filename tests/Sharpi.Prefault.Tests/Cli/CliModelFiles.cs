using Sharpi.Prefault.Tests.Models;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>Small GGUF and safetensors models for the CLI tests: an embedding and two tensors in each of layers 0-3.</summary>
internal sealed class CliModelFiles : IDisposable
{
    /// <summary>Each tensor is 64 x 1024 F32 (or 128 x 512 BF16): 256 KiB, whole pages, so eviction per tensor is exact.</summary>
    public const long TensorBytes = 256 * 1024;

    public static readonly string[] TensorNames =
    [
        "token_embd.weight",
        .. Enumerable.Range(0, 4).SelectMany(layer => new[] { $"blk.{layer}.attn_q.weight", $"blk.{layer}.ffn_up.weight" }),
    ];

    private readonly TempModelDirectory _directory = new();

    public string Gguf()
    {
        // Page-aligned data start and tensors, so a tensor's pages are its own.
        var builder = new GgufBuilder().UInt32("general.alignment", 4096);
        foreach (string name in TensorNames)
        {
            builder.F32(name, 1024, 64);
        }

        return _directory.Write("model.gguf", builder.Build());
    }

    public string Safetensors()
    {
        var builder = new SafetensorsBuilder();
        foreach (string name in TensorNames)
        {
            builder.Tensor(name.Replace("blk.", "model.layers.", StringComparison.Ordinal), "BF16", [128, 1024], 2);
        }

        return _directory.Write("model.safetensors", builder.Build());
    }

    public string Write(string name, byte[] bytes) => _directory.Write(name, bytes);

    public void Dispose() => _directory.Dispose();

    /// <summary>
    /// Reads the file a page at a time with read-ahead off, so its pages are cached as single-page folios: a ranged
    /// eviction drops only whole folios, and read-ahead builds large ones that straddle tensors.
    /// </summary>
    public static void CacheInSmallPages(string path)
    {
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, 1, FileOptions.RandomAccess);
        byte[] page = new byte[Environment.SystemPageSize];
        while (stream.Read(page) > 0)
        {
        }
    }

    public static void Evict(string path)
    {
        if (OperatingSystem.IsLinux())
        {
            PageCache.Evict(path);
        }
    }
}
