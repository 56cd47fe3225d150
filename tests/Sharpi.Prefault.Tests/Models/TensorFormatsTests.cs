namespace Sharpi.Prefault.Tests.Models;

/// <summary>
/// One rule tells a model file's format, for TensorIndex, MappedModel and the tool alike: a shard index by its
/// <c>.index.json</c> name, GGUF by its magic, safetensors by its header or its name; any other JSON is no model.
/// </summary>
public sealed class TensorFormatsTests : IDisposable
{
    private readonly TempModelDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    public static TheoryData<string, string, TensorFormat> Files => new()
    {
        { "model.safetensors.index.json", "index", TensorFormat.ShardedSafetensors },
        { "config.json", "json", TensorFormat.Unknown },
        { "weights", "gguf", TensorFormat.Gguf },
        { "model.gguf", "gguf", TensorFormat.Gguf },
        { "model.bin", "safetensors", TensorFormat.Safetensors },
        { "model.safetensors", "safetensors", TensorFormat.Safetensors },
        { "broken.safetensors", "text", TensorFormat.Safetensors },
        { "broken.gguf", "text", TensorFormat.Unknown },
        { "notes.txt", "text", TensorFormat.Unknown },
    };

    [Theory]
    [MemberData(nameof(Files))]
    public void Detect_OfAFile_TellsItsFormatByTheOneRule(string name, string content, TensorFormat expected)
    {
        string path = Write(name, content);

        Assert.Equal(expected, TensorFormats.Detect(path));
        Assert.Equal(expected != TensorFormat.Unknown || name.EndsWith(".gguf", StringComparison.Ordinal), TensorFormats.IsModel(path));
    }

    [Fact]
    public void Read_OfAJsonFileThatIsNoShardIndex_SaysItIsNoModel()
    {
        string path = Write("config.json", "json");

        ModelFormatException e = Assert.Throws<ModelFormatException>(() => TensorIndex.Read(path));
        Assert.Contains("neither a GGUF file", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Open_OfAJsonFileThatIsNoShardIndex_MapsItAsAPlainFile()
    {
        using MappedModel model = MappedModel.Open(Write("config.json", "json"));

        Assert.Null(model.Index);
    }

    [Fact]
    public void Open_OfSafetensorsWithoutItsExtension_ReadsItsTensorTable()
    {
        using MappedModel model = MappedModel.Open(Write("model.bin", "safetensors"));

        Assert.Equal(TensorFormat.Safetensors, model.Index?.Format);
    }

    [Fact]
    public void Open_OfAShardIndex_ReadsItOnceAndEachShard()
    {
        _dir.Write("s1.safetensors", new SafetensorsBuilder().Tensor("a", "U8", [4], 1).Build());
        _dir.Write("s2.safetensors", new SafetensorsBuilder().Tensor("b", "U8", [4], 1).Build());
        string index = _dir.Write("model.safetensors.index.json", "{\"weight_map\":{\"a\":\"s1.safetensors\",\"b\":\"s2.safetensors\",\"c\":\"s1.safetensors\"}}");

        List<string> shards = SafetensorsIndexReader.ShardPaths(SafetensorsIndexReader.Read(index), index);

        Assert.Equal([Path.Combine(_dir.Path, "s1.safetensors"), Path.Combine(_dir.Path, "s2.safetensors")], shards);
    }

    private string Write(string name, string content) => content switch
    {
        "index" => WriteIndex(name),
        "json" => _dir.Write(name, "{\"hidden_size\": 64, \"weight_map\": {}}"),
        "gguf" => _dir.Write(name, new GgufBuilder().F32("t", 4).Build()),
        "safetensors" => _dir.Write(name, new SafetensorsBuilder().Tensor("t", "U8", [4], 1).Build()),
        _ => _dir.Write(name, "plain text, no header of any model format"),
    };

    private string WriteIndex(string name)
    {
        _dir.Write("s1.safetensors", new SafetensorsBuilder().Tensor("a", "U8", [4], 1).Build());
        return _dir.Write(name, "{\"weight_map\":{\"a\":\"s1.safetensors\"}}");
    }
}
