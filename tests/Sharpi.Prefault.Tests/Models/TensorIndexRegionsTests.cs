using System.IO.MemoryMappedFiles;
using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Tests.Models;

public sealed class TensorIndexRegionsTests : IDisposable
{
    private readonly TempModelDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static unsafe byte[] BytesAt(PrefaultRegion region)
    {
        return new ReadOnlySpan<byte>((void*)region.Address, checked((int)region.Length)).ToArray();
    }

    private static byte[] FileBytes(string path, long offset, long length)
    {
        byte[] bytes = new byte[length];
        using var handle = File.OpenHandle(path);
        RandomAccess.Read(handle, bytes, offset);
        return bytes;
    }

    [Fact]
    public void Regions_OverAMappedGguf_PointAtEachSelectedTensorsBytes()
    {
        byte[] bytes = new GgufBuilder().UInt32("general.alignment", 64)
            .F32("token_embd.weight", 16, 4).F32("blk.0.ffn_up_exps.weight", 8, 8).F32("blk.1.ffn_up_exps.weight", 8, 8).F32("output.weight", 4).Build();
        string path = _dir.Write("model.gguf", bytes);
        TensorIndex index = TensorIndex.Read(path);
        using var map = MappedFile.WithView(path, bytes.Length);

        IReadOnlyList<PrefaultRegion> regions = index.Regions(map.View, new TensorSelection(include: ["blk.*.ffn_*_exps.weight"]));

        Assert.Equal(["blk.0.ffn_up_exps.weight", "blk.1.ffn_up_exps.weight"], regions.Select(r => r.Name));
        foreach (PrefaultRegion region in regions)
        {
            TensorInfo tensor = index.Tensors.Single(t => t.Name == region.Name);
            Assert.Equal(tensor.Length, region.Length);
            Assert.Equal(FileBytes(path, tensor.Offset, tensor.Length), BytesAt(region));
        }
    }

    /// <summary>
    /// The tool refuses a --tensor pattern that matches no tensor; the library returned no regions, so a typo (here a
    /// pattern that stops short of the name's end) prefaulted nothing without a word. Now the call names the pattern.
    /// </summary>
    [Fact]
    public void Regions_WithAnIncludePatternThatMatchesNoTensor_ThrowsNamingThePattern()
    {
        byte[] bytes = new GgufBuilder().F32("token_embd.weight", 16).F32("blk.0.ffn_up_exps.weight", 8).Build();
        string path = _dir.Write("model.gguf", bytes);
        TensorIndex index = TensorIndex.Read(path);
        using var map = MappedFile.WithView(path, bytes.Length);

        var e = Assert.Throws<ArgumentException>(() => index.Regions(map.View, new TensorSelection(include: ["token_embd.*", "blk.*.ffn_up_exps"])));

        Assert.Equal("selection", e.ParamName);
        Assert.Contains("'blk.*.ffn_up_exps'", e.Message, StringComparison.Ordinal);
        Assert.Contains("matches no tensor", e.Message, StringComparison.Ordinal);
        Assert.Contains(path, e.Message, StringComparison.Ordinal);
        Assert.Contains("TensorIndex.Select", e.Message, StringComparison.Ordinal);
        Assert.Empty(index.Select(new TensorSelection(include: ["blk.*.ffn_up_exps"]))); // the way to ask without throwing
    }

    [Fact]
    public void Regions_WithAnExcludePatternThatMatchesNothing_OrAnIncludeThatIsAllExcluded_ReturnsWhatIsLeft()
    {
        byte[] bytes = new GgufBuilder().F32("token_embd.weight", 16).F32("blk.0.attn_q.weight", 8).Build();
        string path = _dir.Write("model.gguf", bytes);
        TensorIndex index = TensorIndex.Read(path);
        using var map = MappedFile.WithView(path, bytes.Length);

        IReadOnlyList<PrefaultRegion> noExpert = index.Regions(map.View, new TensorSelection(exclude: ["blk.*.ffn_*_exps.weight"]));
        IReadOnlyList<PrefaultRegion> allExcluded = index.Regions(map.View, new TensorSelection(include: ["blk.*"], exclude: ["blk.0.*"]));

        Assert.Equal(2, noExpert.Count);
        Assert.Empty(allExcluded);
    }

    [Fact]
    public void Regions_OfAShard_WithAPatternThatMatchesOnlyInAnotherShard_ReturnsNoRegions()
    {
        string shard = _dir.Write("s1.safetensors", new SafetensorsBuilder().Tensor("model.layers.0.w", "F16", [6], 2).Build());
        _dir.Write("s2.safetensors", new SafetensorsBuilder().Tensor("lm_head.weight", "F32", [2], 4).Build());
        TensorIndex index = TensorIndex.Read(_dir.Write("model.safetensors.index.json",
            "{\"weight_map\":{\"model.layers.0.w\":\"s1.safetensors\",\"lm_head.weight\":\"s2.safetensors\"}}"));
        using var map = MappedFile.WithView(shard, new FileInfo(shard).Length);

        Assert.Empty(index.Regions(shard, map.View, new TensorSelection(include: ["lm_head.*"])));
        Assert.Throws<ArgumentException>(() => index.Regions(shard, map.View, new TensorSelection(include: ["lm_head"])));
    }

    [Fact]
    public void Regions_OverAMappedShard_PointAtThatShardsTensors()
    {
        string shard = _dir.Write("s1.safetensors", new SafetensorsBuilder().Metadata().Tensor("model.layers.0.w", "F16", [6], 2).Tensor("model.layers.1.w", "I32", [3], 4).Build());
        _dir.Write("s2.safetensors", new SafetensorsBuilder().Tensor("lm_head.weight", "F32", [2], 4).Build());
        TensorIndex index = TensorIndex.Read(_dir.Write("model.safetensors.index.json",
            "{\"weight_map\":{\"model.layers.0.w\":\"s1.safetensors\",\"model.layers.1.w\":\"s1.safetensors\",\"lm_head.weight\":\"s2.safetensors\"}}"));
        using var map = MappedFile.WithView(shard, new FileInfo(shard).Length);

        IReadOnlyList<PrefaultRegion> regions = index.Regions(shard, map.View);

        Assert.Equal(["model.layers.0.w", "model.layers.1.w"], regions.Select(r => r.Name));
        Assert.All(regions, r =>
        {
            TensorInfo t = index.Tensors.Single(x => x.Name == r.Name);
            Assert.Equal(FileBytes(shard, t.Offset, t.Length), BytesAt(r));
        });
    }

    [Fact]
    public void Regions_WithoutFileOnAShardedIndex_Throws()
    {
        string shard = _dir.Write("s1.safetensors", new SafetensorsBuilder().Tensor("a", "U8", [4], 1).Build());
        _dir.Write("s2.safetensors", new SafetensorsBuilder().Tensor("b", "U8", [4], 1).Build());
        TensorIndex index = TensorIndex.Read(_dir.Write("i.index.json", "{\"weight_map\":{\"a\":\"s1.safetensors\",\"b\":\"s2.safetensors\"}}"));
        using var map = MappedFile.WithView(shard, new FileInfo(shard).Length);

        Assert.Throws<ArgumentException>(() => index.Regions(map.View));
    }

    [Fact]
    public void Regions_WithAViewShorterThanTheFile_ThrowsOutOfRange()
    {
        byte[] bytes = new GgufBuilder().F32("a", 1024).Build();
        string path = _dir.Write("model.gguf", bytes);
        TensorIndex index = TensorIndex.Read(path);
        using var map = MappedFile.WithView(path, 64);

        Assert.Throws<ArgumentOutOfRangeException>(() => index.Regions(map.View));
    }

    [Fact]
    public void Ranges_MergeTouchingTensorsPerFile()
    {
        byte[] bytes = new SafetensorsBuilder().Tensor("a", "U8", [8], 1).Tensor("b", "U8", [8], 1).Tensor("c", "U8", [8], 1).Build();
        TensorIndex index = TensorIndex.Read(_dir.Write("m.safetensors", bytes));

        FileByteRange all = Assert.Single(index.Ranges());
        IReadOnlyList<FileByteRange> ends = index.Ranges(new TensorSelection(exclude: ["b"]));

        Assert.Equal((index.Tensors[0].Offset, 24L), (all.Offset, all.Length));
        Assert.Equal([index.Tensors[0].Offset, index.Tensors[2].Offset], ends.Select(r => r.Offset));
    }
}
