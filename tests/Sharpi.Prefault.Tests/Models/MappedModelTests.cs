using System.Runtime.Versioning;
using Sharpi.Prefault.Tests.Mappings;

namespace Sharpi.Prefault.Tests.Models;

public sealed class MappedModelTests : IDisposable
{
    private readonly TempModelDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private string WriteGguf(string name = "model.gguf") => _dir.Write(name, new GgufBuilder().UInt32("general.alignment", 64)
        .F32("token_embd.weight", 16, 4).F32("blk.0.attn_q.weight", 8, 8).F32("blk.0.ffn_up.weight", 8, 8)
        .F32("blk.1.attn_q.weight", 8, 8).F32("blk.1.ffn_up.weight", 8, 8).F32("output.weight", 4).Build());

    private string WriteShardedModel()
    {
        _dir.Write("s1.safetensors", new SafetensorsBuilder().Metadata().Tensor("model.layers.0.w", "F16", [6], 2).Tensor("model.layers.1.w", "I32", [3], 4).Build());
        _dir.Write("s2.safetensors", new SafetensorsBuilder().Tensor("lm_head.weight", "F32", [2], 4).Build());
        return _dir.Write("model.safetensors.index.json",
            "{\"weight_map\":{\"model.layers.0.w\":\"s1.safetensors\",\"model.layers.1.w\":\"s1.safetensors\",\"lm_head.weight\":\"s2.safetensors\"}}");
    }

    [Fact]
    public void Open_Gguf_RegionsPointAtEachSelectedTensorsBytes()
    {
        string path = WriteGguf();
        using MappedModel model = MappedModel.Open(path);

        IReadOnlyList<PrefaultRegion> regions = model.Regions(new TensorSelection(include: ["blk.*.ffn_up.weight"]));

        Assert.Equal(TensorFormat.Gguf, model.Index!.Format);
        Assert.Equal(["blk.0.ffn_up.weight", "blk.1.ffn_up.weight"], regions.Select(r => r.Name));
        foreach (PrefaultRegion region in regions)
        {
            TensorInfo tensor = model.Index.Tensors.Single(t => t.Name == region.Name);
            Assert.Equal(RegionBytes.OfFile(path, tensor.Offset, tensor.Length), RegionBytes.Of(region));
        }
    }

    [Fact]
    public void Regions_InOrder_PutTheFirstSelectionsTensorsFirstAndNeverRepeatOne()
    {
        using MappedModel model = MappedModel.Open(WriteGguf());
        var hot = new TensorSelection(include: ["blk.1.*", "output.*"]);
        var rest = new TensorSelection(exclude: ["token_embd.*"]);

        IReadOnlyList<PrefaultRegion> regions = model.Regions(hot, rest, TensorSelection.All);

        Assert.Equal(
            ["blk.1.attn_q.weight", "blk.1.ffn_up.weight", "output.weight", "blk.0.attn_q.weight", "blk.0.ffn_up.weight", "token_embd.weight"],
            regions.Select(r => r.Name));
    }

    [Fact]
    public void Regions_WithASelectionWhosePatternMatchesNoTensor_ThrowsNamingThePatternAndTheSelection()
    {
        using MappedModel model = MappedModel.Open(WriteGguf());
        var hot = new TensorSelection(include: ["blk.0.*"]);
        var typo = new TensorSelection(include: ["blk.1.*", "outptu.*"]);

        var e = Assert.Throws<ArgumentException>(() => model.Regions(hot, typo, TensorSelection.All));

        Assert.Equal("selectionsInOrder", e.ParamName);
        Assert.Contains("'outptu.*' (an include pattern of selection 1) matches no tensor", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Regions_WithALaterSelectionWhoseTensorsAnEarlierOneTook_ReturnsThemOnce()
    {
        using MappedModel model = MappedModel.Open(WriteGguf());

        IReadOnlyList<PrefaultRegion> regions = model.Regions(new TensorSelection(include: ["blk.0.*"]), new TensorSelection(include: ["blk.0.attn_q.weight"]));

        Assert.Equal(["blk.0.attn_q.weight", "blk.0.ffn_up.weight"], regions.Select(r => r.Name));
    }

    [Fact]
    public void Regions_WithoutSelections_AreOneWholeFileRegionPerShardInIndexOrder()
    {
        using MappedModel model = MappedModel.Open(WriteShardedModel());

        IReadOnlyList<PrefaultRegion> regions = model.Regions();

        Assert.Equal(TensorFormat.ShardedSafetensors, model.Index!.Format);
        Assert.Equal(model.Files, regions.Select(r => r.Name));
        Assert.Equal(model.Files.Select(f => new FileInfo(f).Length), regions.Select(r => r.Length));
        Assert.Equal(model.Files.Sum(f => new FileInfo(f).Length), model.Length);
        Assert.All(regions, r => Assert.Equal(File.ReadAllBytes(r.Name!), RegionBytes.Of(r)));
    }

    [Fact]
    public void Regions_OfAShardedModel_PointIntoEachTensorsOwnShard()
    {
        using MappedModel model = MappedModel.Open(WriteShardedModel());

        IReadOnlyList<PrefaultRegion> regions = model.Regions(new TensorSelection(include: ["lm_head.*"]), TensorSelection.All);

        Assert.Equal(["lm_head.weight", "model.layers.0.w", "model.layers.1.w"], regions.Select(r => r.Name));
        AssertEachHoldsItsTensorsBytes(model, regions);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [SupportedOSPlatform("linux")]
    public void Open_ShardedModel_HoldsNoDescriptorOnceMappedAndTheMappingsStayValid()
    {
        using MappedModel model = MappedModel.Open(WriteShardedModel());

        Assert.Equal(0, OpenDescriptorsOf(model.Files));
        using (File.OpenHandle(model.Files[0]))
        {
            Assert.Equal(1, OpenDescriptorsOf(model.Files)); // the count sees a descriptor when there is one
        }

        GC.Collect();
        GC.WaitForPendingFinalizers();
        Assert.All(model.Regions(), r => Assert.Equal(File.ReadAllBytes(r.Name!), RegionBytes.Of(r)));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [SupportedOSPlatform("linux")]
    public void Open_ModelOfManyShards_MapsThemAllWithoutHoldingTheirDescriptors()
    {
        const int Shards = 300;
        var weightMap = new List<string>();
        for (int i = 0; i < Shards; i++)
        {
            string shard = $"model-{i:D5}-of-{Shards:D5}.safetensors";
            _dir.Write(shard, new SafetensorsBuilder().Tensor($"model.layers.{i}.w", "I32", [64], 4).Build());
            weightMap.Add($"\"model.layers.{i}.w\":\"{shard}\"");
        }

        using MappedModel model = MappedModel.Open(_dir.Write("model.safetensors.index.json", $"{{\"weight_map\":{{{string.Join(',', weightMap)}}}}}"));

        Assert.Equal(Shards, model.Files.Count);
        Assert.Equal(0, OpenDescriptorsOf(model.Files));
        IReadOnlyList<PrefaultRegion> regions = model.Regions(TensorSelection.All);
        Assert.Equal(Shards, regions.Count);
        AssertEachHoldsItsTensorsBytes(model, regions);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [SupportedOSPlatform("linux")]
    public void Run_OverAModelsRegions_MakesTheSelectedTensorsResident()
    {
        var builder = new GgufBuilder();
        for (int layer = 0; layer < 4; layer++)
        {
            builder.F32($"blk.{layer}.ffn_up.weight", 1024, 1024);
        }

        string path = _dir.Write("big.gguf", builder.Build());
        PageCache.Evict(path);
        using MappedModel model = MappedModel.Open(path);
        IReadOnlyList<PrefaultRegion> regions = model.Regions(new TensorSelection(include: ["blk.2.*"]), new TensorSelection(include: ["blk.0.*"]));
        Assert.True(Residency.Measure(regions).Percent < 50, "expected cold tensors");

        PrefaultResult result = MmapPrefault.Run(regions);

        Assert.True(result.HasRun, result.Reason);
        Assert.Empty(result.Failures);
        Assert.Equal(8L << 20, result.Bytes);
        Assert.Equal(100.0, Residency.Measure(regions).Percent, 3);
    }

    [Fact]
    public void Open_PlainFile_HasNoIndexAndAlwaysOneWholeFileRegion()
    {
        string path = _dir.Write("weights.bin", Enumerable.Range(0, 10_000).Select(i => (byte)i).ToArray());
        using MappedModel model = MappedModel.Open(path);

        Assert.Null(model.Index);
        Assert.Equal([path], model.Files);
        PrefaultRegion whole = Assert.Single(model.Regions());
        Assert.Equal(File.ReadAllBytes(path), RegionBytes.Of(whole));
        Assert.Equal(whole, Assert.Single(model.Regions(new TensorSelection(include: ["blk.*"]))));
        Assert.Equal(whole, model.FileRegion(path));
    }

    [Fact]
    public void Open_GgufWithoutExtension_IsReadAsAModel()
    {
        string path = WriteGguf("model-without-extension");
        using MappedModel model = MappedModel.Open(path);

        Assert.Equal(TensorFormat.Gguf, model.Index!.Format);
    }

    [Fact]
    public void OpenFile_OfAModel_ReadsNoHeaderAndTakesTheTensorsOfAnIndexReadElsewhere()
    {
        string path = WriteGguf();
        TensorIndex index = TensorIndex.Read(path);
        using MappedModel model = MappedModel.OpenFile(path);

        Assert.Null(model.Index);
        Assert.Equal(File.ReadAllBytes(path), RegionBytes.Of(Assert.Single(model.Regions())));
        TensorInfo tensor = index.Tensors.Single(t => t.Name == "blk.1.ffn_up.weight");
        PrefaultRegion region = model.Region(tensor);
        Assert.Equal("blk.1.ffn_up.weight", region.Name);
        Assert.Equal(RegionBytes.OfFile(path, tensor.Offset, tensor.Length), RegionBytes.Of(region));
    }

    [Fact]
    public void OpenFile_OfAMalformedModel_MapsItAsBytes()
    {
        string path = _dir.Write("broken.gguf", "GGUF not really"u8.ToArray());
        using MappedModel model = MappedModel.OpenFile(path);

        Assert.Equal("GGUF not really"u8.ToArray(), RegionBytes.Of(model.FileRegion(path)));
    }

    [Fact]
    public void Open_EmptyPlainFile_HasNoRegions()
    {
        string path = _dir.Write("empty.bin", []);
        using MappedModel model = MappedModel.Open(path);

        Assert.Empty(model.Regions());
        Assert.True(model.FileRegion(path).IsEmpty);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [SupportedOSPlatform("linux")]
    public void Open_Fifo_ThrowsIOExceptionWithoutBlocking()
    {
        string path = Path.Combine(_dir.Path, "weights.gguf");
        NativeFifo.Create(path);

        Task<Exception?> open = Task.Run<Exception?>(() => Record.Exception(() => MappedModel.Open(path).Dispose()));

        Assert.True(open.Wait(TimeSpan.FromSeconds(30)), "Open blocked on a FIFO");
        IOException e = Assert.IsType<IOException>(open.Result);
        Assert.Contains("FIFO", e.Message, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [SupportedOSPlatform("linux")]
    public void Open_IndexNamingAFifoShard_ThrowsIOExceptionWithoutBlocking()
    {
        string index = WriteShardedModel();
        File.Delete(Path.Combine(_dir.Path, "s2.safetensors"));
        NativeFifo.Create(Path.Combine(_dir.Path, "s2.safetensors"));

        Task<Exception?> open = Task.Run<Exception?>(() => Record.Exception(() => MappedModel.Open(index).Dispose()));

        Assert.True(open.Wait(TimeSpan.FromSeconds(30)), "Open blocked on a FIFO shard");
        Assert.IsType<IOException>(open.Result);
    }

    [Fact]
    public void Open_Directory_ThrowsIOExceptionNamingIt()
    {
        IOException e = Assert.Throws<IOException>(() => MappedModel.Open(_dir.Path));

        Assert.Contains("directory", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Open_MissingFile_ThrowsFileNotFound()
    {
        string path = Path.Combine(_dir.Path, "missing.gguf");

        FileNotFoundException e = Assert.Throws<FileNotFoundException>(() => MappedModel.Open(path));

        Assert.Equal(path, e.FileName);
    }

    [Fact]
    public void Open_IndexNamingAMissingShard_ThrowsFileNotFound()
    {
        string index = WriteShardedModel();
        File.Delete(Path.Combine(_dir.Path, "s2.safetensors"));

        Assert.Throws<FileNotFoundException>(() => MappedModel.Open(index));
    }

    [Fact]
    public void Open_MalformedGguf_ThrowsModelFormatException()
    {
        string path = _dir.Write("bad.gguf", [.. "GGUF"u8, 3, 0, 0, 0, 0xFF, 0xFF]);

        Assert.Throws<ModelFormatException>(() => MappedModel.Open(path));
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    public void Open_NullOrEmptyPath_ThrowsArgumentException(string? path)
    {
        Assert.ThrowsAny<ArgumentException>(() => MappedModel.Open(path!));
    }

    [Fact]
    public void Regions_WithANullSelection_ThrowsArgumentNull()
    {
        using MappedModel model = MappedModel.Open(WriteGguf());

        Assert.Throws<ArgumentNullException>(() => model.Regions(TensorSelection.All, null!));
        Assert.Throws<ArgumentNullException>(() => model.Regions(null!));
    }

    [Fact]
    public void Region_OfATensorOfAnotherModel_ThrowsArgumentException()
    {
        using MappedModel model = MappedModel.Open(WriteGguf());
        TensorIndex other = TensorIndex.Read(WriteShardedModel());

        Assert.Throws<ArgumentException>(() => model.Region(other.Tensors[0]));
    }

    [Fact]
    public void Region_OfATensor_IsWhereItsBytesAreMapped()
    {
        string path = WriteGguf();
        using MappedModel model = MappedModel.Open(path);
        TensorInfo tensor = model.Index!.Tensors[2];

        PrefaultRegion region = model.Region(tensor);

        Assert.Equal(tensor.Name, region.Name);
        Assert.Equal(RegionBytes.OfFile(path, tensor.Offset, tensor.Length), RegionBytes.Of(region));
    }

    [Fact]
    public void Regions_AfterDispose_ThrowObjectDisposed()
    {
        MappedModel model = MappedModel.Open(WriteGguf());
        model.Dispose();

        Assert.Throws<ObjectDisposedException>(() => model.Regions());
    }

    /// <summary>Each region maps the bytes of the tensor it is named for, read from that tensor's own file.</summary>
    private static void AssertEachHoldsItsTensorsBytes(MappedModel model, IReadOnlyList<PrefaultRegion> regions) =>
        Assert.All(regions, r =>
        {
            TensorInfo t = model.Index!.Tensors.Single(x => x.Name == r.Name);
            Assert.Equal(RegionBytes.OfFile(t.FilePath, t.Offset, t.Length), RegionBytes.Of(r));
        });

    /// <summary>How many of this process's descriptors are open on any of <paramref name="files"/>.</summary>
    private static int OpenDescriptorsOf(IReadOnlyList<string> files)
    {
        int count = 0;
        foreach (string fd in Directory.EnumerateFileSystemEntries("/proc/self/fd"))
        {
            try
            {
                if (new FileInfo(fd).LinkTarget is { } target && files.Contains(target))
                {
                    count++;
                }
            }
            catch (IOException)
            {
                // The descriptor closed while the folder was listed.
            }
        }

        return count;
    }
}
