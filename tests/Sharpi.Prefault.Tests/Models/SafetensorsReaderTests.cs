using System.Text;

namespace Sharpi.Prefault.Tests.Models;

public sealed class SafetensorsReaderTests() : ModelFileTests("model.safetensors")
{
    private static byte[] WithHeader(string json, long dataBytes = 64) => new SafetensorsBuilder { DataLength = dataBytes }.Build(json);

    [Fact]
    public void Read_Safetensors_ListsTensorsAtHeaderEndPlusDataOffsets_InFileOrder()
    {
        // JSON order differs from data order: the index reports file order.
        var builder = new SafetensorsBuilder { DataLength = 28 };
        string json = "{\"__metadata__\":{\"format\":\"pt\"},"
            + "\"b\":{\"dtype\":\"BF16\",\"shape\":[2,3],\"data_offsets\":[16,28]},"
            + "\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}";
        byte[] bytes = builder.Build(json);
        long dataStart = 8 + (long)BitConverter.ToUInt64(bytes, 0);

        TensorIndex index = Read(bytes);

        Assert.Equal(TensorFormat.Safetensors, index.Format);
        Assert.Equal(["a", "b"], index.Tensors.Select(t => t.Name));
        Assert.Equal((dataStart, 16L, "F32"), (index.Tensors[0].Offset, index.Tensors[0].Length, index.Tensors[0].DType));
        Assert.Equal((dataStart + 16, 12L), (index.Tensors[1].Offset, index.Tensors[1].Length));
        Assert.Equal([2L, 3L], index.Tensors[1].Shape);
    }

    [Fact]
    public void Read_SafetensorsWithSubByteDtype_CountsBitsNotBytes()
    {
        byte[] bytes = WithHeader("{\"w\":{\"dtype\":\"F4\",\"shape\":[4,4],\"data_offsets\":[0,8]}}");

        Assert.Equal(8, Read(bytes).Tensors[0].Length);
    }

    [Fact]
    public void Read_SafetensorsHeaderLengthLargerThanTheFile_ThrowsFormatException()
    {
        byte[] bytes = WithHeader("{}");
        GgufBuilder.U64(1000).CopyTo(bytes, 0);

        ModelFormatException e = ReadFails(bytes);

        Assert.Equal(0, e.Offset);
        Assert.EndsWith("model.safetensors", e.FilePath, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_SafetensorsHeaderLengthOverTheCap_ThrowsBeforeAllocating()
    {
        byte[] bytes = WithHeader("{}");
        GgufBuilder.U64(1UL << 40).CopyTo(bytes, 0);

        Assert.Contains("more than", ReadFails(bytes).Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}")] // unterminated
    [InlineData("[1,2]")]
    [InlineData("{\"w\":7}")]
    [InlineData("{\"w\":{\"dtype\":5,\"shape\":[1],\"data_offsets\":[0,4]}}")]
    [InlineData("{\"w\":{\"dtype\":\"F32\",\"shape\":[\"1\"],\"data_offsets\":[0,4]}}")]
    [InlineData("{\"w\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}")]
    [InlineData("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}")]
    [InlineData("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}")]
    [InlineData("{\"w\":{\"dtype\":\"F32\",\"shape\":[1]}}")]
    [InlineData("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,1e3]}}")]
    [InlineData("{} {}")]
    public void Read_SafetensorsWithInvalidOrWrongTypedJson_ThrowsFormatException(string json)
    {
        ReadFails(WithHeader(json));
    }

    [Fact]
    public void Read_SafetensorsWithUnknownDtype_ThrowsFormatException()
    {
        byte[] bytes = WithHeader("{\"w\":{\"dtype\":\"F12\",\"shape\":[1],\"data_offsets\":[0,4]}}");

        Assert.Contains("unknown dtype 'F12'", ReadFails(bytes).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_SafetensorsWithShapeThatDisagreesWithDataOffsets_ThrowsFormatException()
    {
        byte[] bytes = WithHeader("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}");

        Assert.Contains("needs 8 bytes", ReadFails(bytes).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_SafetensorsWithShapeProductOverflow_ThrowsFormatException()
    {
        byte[] bytes = WithHeader("{\"w\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,4]}}");

        Assert.Contains("overflows", ReadFails(bytes).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_SafetensorsWithDataPastTheEnd_ThrowsFormatException()
    {
        byte[] bytes = new SafetensorsBuilder().Tensor("w", "F32", [4], 4).Build();

        Assert.Contains("past the end", ReadFails(bytes[..^1]).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_SafetensorsWithOverlappingTensors_ThrowsFormatException()
    {
        var builder = new SafetensorsBuilder().Raw("a", "{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]}", 8)
            .Raw("b", "{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[4,12]}", 4);

        Assert.Contains("overlaps", ReadFails(builder.Build()).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_SafetensorsWithDuplicateName_ThrowsFormatException()
    {
        byte[] bytes = WithHeader("{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}");

        Assert.Contains("twice", ReadFails(bytes).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_ShardedSafetensors_TakesEachTensorFromItsShard()
    {
        Files.Write("model-00001-of-00002.safetensors", new SafetensorsBuilder().Tensor("model.layers.0.w", "F16", [4], 2).Build());
        Files.Write("model-00002-of-00002.safetensors", new SafetensorsBuilder().Tensor("model.layers.1.w", "F16", [8], 2).Tensor("lm_head.weight", "F32", [2], 4).Build());
        string indexPath = Files.Write("model.safetensors.index.json",
            "{\"metadata\":{\"total_size\":28},\"weight_map\":{\"model.layers.0.w\":\"model-00001-of-00002.safetensors\","
            + "\"lm_head.weight\":\"model-00002-of-00002.safetensors\",\"model.layers.1.w\":\"model-00002-of-00002.safetensors\"}}");

        TensorIndex index = TensorIndex.Read(indexPath);

        Assert.Equal(TensorFormat.ShardedSafetensors, index.Format);
        Assert.Equal(2, index.Files.Count);
        Assert.Equal(["model.layers.0.w", "model.layers.1.w", "lm_head.weight"], index.Tensors.Select(t => t.Name));
        Assert.Equal(Path.Combine(Files.Path, "model-00002-of-00002.safetensors"), index.Tensors[2].FilePath);
    }

    [Fact]
    public void Read_ShardedIndexNamingATensorItsShardLacks_ThrowsFormatException()
    {
        Files.Write("a.safetensors", new SafetensorsBuilder().Tensor("x", "F16", [4], 2).Build());
        string indexPath = Files.Write("model.safetensors.index.json", "{\"weight_map\":{\"x\":\"a.safetensors\",\"y\":\"a.safetensors\"}}");

        ModelFormatException e = Assert.Throws<ModelFormatException>(() => TensorIndex.Read(indexPath));

        Assert.Equal(indexPath, e.FilePath);
        Assert.Contains("'y'", e.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("{\"weight_map\":{\"x\":\"../escape.safetensors\"}}")]
    [InlineData("{\"weight_map\":{\"x\":\"/etc/passwd\"}}")]
    [InlineData("{\"weight_map\":{\"x\":5}}")]
    [InlineData("{\"weight_map\":[]}")]
    [InlineData("{\"metadata\":{}}")]
    [InlineData("{\"weight_map\":{\"x\":\"a.safetensors\"}")]
    public void Read_ShardedIndexThatIsMalformedOrPointsOutside_ThrowsFormatException(string json)
    {
        string indexPath = Files.Write("model.safetensors.index.json", Encoding.UTF8.GetBytes(json));

        Assert.Throws<ModelFormatException>(() => TensorIndex.Read(indexPath));
    }

    [Fact]
    public void Read_FileThatIsNeitherFormat_ThrowsFormatException()
    {
        ModelFormatException e = Assert.Throws<ModelFormatException>(() => Read("hello, world"u8.ToArray(), "notes.bin"));

        Assert.Contains("neither", e.Message, StringComparison.Ordinal);
    }
}
