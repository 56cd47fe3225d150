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

    public string Write(string name, string text) => _directory.Write(name, text);

    public string Directory => _directory.Path;

    /// <summary>A sharded safetensors model: <c>model.safetensors.index.json</c> and two shards of two tensors each.</summary>
    public string Sharded()
    {
        string[][] shards = [["a.weight", "b.weight"], ["c.weight", "d.weight"]];
        var map = new List<string>();
        for (int i = 0; i < shards.Length; i++)
        {
            string shard = $"model-0000{i + 1}-of-00002.safetensors";
            var builder = new SafetensorsBuilder();
            foreach (string name in shards[i])
            {
                builder.Tensor(name, "BF16", [128, 1024], 2);
                map.Add($"\"{name}\": \"{shard}\"");
            }

            _directory.Write(shard, builder.Build());
        }

        return WriteIndex(map);
    }

    /// <summary>An index whose weight_map entries are given as JSON members (<c>"tensor": "shard"</c>).</summary>
    public string WriteIndex(IEnumerable<string> weightMapMembers, string name = "model.safetensors.index.json") =>
        _directory.Write(name, "{\"metadata\": {}, \"weight_map\": {" + string.Join(", ", weightMapMembers) + "}}");

    /// <summary>A FIFO (named pipe): opening it for reading blocks until a writer comes.</summary>
    public string Fifo(string name)
    {
        string path = System.IO.Path.Combine(_directory.Path, name);
        using var mkfifo = System.Diagnostics.Process.Start("mkfifo", [path]);
        mkfifo.WaitForExit();
        Assert.Equal(0, mkfifo.ExitCode);
        return path;
    }

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
