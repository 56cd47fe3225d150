using System.Text.Json;

namespace Sharpi.Prefault.Tests.Models;

public sealed class GgufReaderTests() : ModelFileTests("model.gguf")
{
    [Theory]
    [InlineData(2u)]
    [InlineData(3u)]
    public void Read_GgufV2AndV3_ListsTensorsAtDataStartPlusRelativeOffset(uint version)
    {
        var builder = new GgufBuilder { Version = version }.String("general.architecture", "llama")
            .F32("token_embd.weight", 8, 4).F32("blk.0.attn_q.weight", 8, 8);
        byte[] bytes = builder.Build(out long dataStart);

        TensorIndex index = Read(bytes);

        Assert.Equal(TensorFormat.Gguf, index.Format);
        Assert.Collection(index.Tensors,
            t =>
            {
                Assert.Equal(("token_embd.weight", "F32", dataStart, 128L), (t.Name, t.DType, t.Offset, t.Length));
                Assert.Equal([8L, 4L], t.Shape);
            },
            t => Assert.Equal(("blk.0.attn_q.weight", dataStart + 128, 256L), (t.Name, t.Offset, t.Length)));
    }

    [Fact]
    public void Read_GgufWithGeneralAlignment_PadsTheDataStartToIt()
    {
        byte[] bytes = new GgufBuilder().UInt32("general.alignment", 256).F32("a", 3).F32("b", 5).Build(out long dataStart);

        TensorIndex index = Read(bytes);

        Assert.Equal(0, dataStart % 256);
        Assert.Equal([dataStart, dataStart + 256], index.Tensors.Select(t => t.Offset));
    }

    [Fact]
    public void Read_GgufWithoutAlignmentKey_UsesTheDefaultOf32()
    {
        byte[] bytes = new GgufBuilder().String("general.name", "x").F32("a", 1).Build(out long dataStart);

        Assert.Equal(dataStart, Read(bytes).Tensors[0].Offset);
        Assert.Equal(0, dataStart % 32);
    }

    [Theory]
    [InlineData(2u, "Q4_0", 32 * 4, 18 * 4)]
    [InlineData(8u, "Q8_0", 64, 34 * 2)]
    [InlineData(12u, "Q4_K", 256 * 2, 144 * 2)]
    [InlineData(14u, "Q6_K", 256, 210)]
    [InlineData(16u, "IQ2_XXS", 256, 66)]
    [InlineData(23u, "IQ4_XS", 512, 136 * 2)]
    [InlineData(30u, "BF16", 10, 20)]
    [InlineData(39u, "MXFP4", 64, 34)]
    public void Read_GgufQuantizedTensor_ComputesBytesFromBlockAndTypeSize(uint type, string name, long elements, long bytes)
    {
        byte[] file = new GgufBuilder().Tensor("w", type, [elements, 1], 0, bytes).Build();

        TensorInfo tensor = Read(file).Tensors[0];

        Assert.Equal((name, bytes), (tensor.DType, tensor.Length));
    }

    [Fact]
    public void Read_GgufV1_ThrowsWithAClearMessage()
    {
        byte[] bytes = new GgufBuilder { Version = 1 }.F32("a", 1).Build();

        Assert.Contains("version 1", ReadFails(bytes).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_GgufWithHugeTensorCount_ThrowsFormatException()
    {
        byte[] bytes = new GgufBuilder().F32("a", 1).Build();
        GgufBuilder.U64(1UL << 40).CopyTo(bytes, 8);

        ModelFormatException e = ReadFails(bytes);

        Assert.Equal(8, e.Offset);
        Assert.Contains("tensor count", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_GgufWithHugeKvCount_ThrowsFormatException()
    {
        byte[] bytes = new GgufBuilder().String("k", "v").Build();
        GgufBuilder.U64(1UL << 40).CopyTo(bytes, 16);

        Assert.Equal(16, ReadFails(bytes).Offset);
    }

    [Fact]
    public void Read_GgufWithStringLengthPastTheEnd_ThrowsFormatException()
    {
        byte[] bytes = new GgufBuilder().String("general.name", "model").Build();
        GgufBuilder.U64(ulong.MaxValue - 3).CopyTo(bytes, 24 + 8 + 12 + 4);

        Assert.Contains("truncated", ReadFails(bytes).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_GgufWithAbsurdArrayLength_ThrowsFormatException()
    {
        byte[] bytes = new GgufBuilder().StringArray("tokenizer.ggml.tokens", "a", "b").Build();
        int countAt = 24 + 8 + "tokenizer.ggml.tokens".Length + 4 + 4;
        GgufBuilder.U64(1UL << 62).CopyTo(bytes, countAt);

        Assert.Equal(countAt, ReadFails(bytes).Offset);
    }

    [Fact]
    public void Read_GgufWithUnknownGgmlType_ThrowsFormatException()
    {
        byte[] bytes = new GgufBuilder().Tensor("w", 31, [32], 0, 64).Build();

        Assert.Contains("unknown ggml type 31", ReadFails(bytes).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_GgufWithShapeProductOverflow_ThrowsFormatException()
    {
        byte[] bytes = new GgufBuilder().Tensor("w", 0, [1L << 40, 1L << 40], 0, 4).Build();

        Assert.Contains("overflows", ReadFails(bytes).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_GgufWithTensorPastTheEnd_ThrowsFormatException()
    {
        var builder = new GgufBuilder().F32("a", 16);
        byte[] bytes = builder.Build();

        Assert.Contains("past the end", ReadFails(bytes[..^1]).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_GgufWithOverlappingTensors_ThrowsFormatException()
    {
        byte[] bytes = new GgufBuilder().Tensor("a", 0, [16], 0, 64).Tensor("b", 0, [16], 32, 64).Build();

        Assert.Contains("overlaps", ReadFails(bytes).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_GgufWithMisalignedTensorOffset_ThrowsFormatException()
    {
        byte[] bytes = new GgufBuilder().Tensor("a", 0, [4], 4, 16).Build();

        Assert.Contains("alignment", ReadFails(bytes).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_GgufWithNonPowerOfTwoAlignment_ThrowsFormatException()
    {
        byte[] bytes = new GgufBuilder().UInt32("general.alignment", 48).Build();

        Assert.Contains("power of two", ReadFails(bytes).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_GgufWithDuplicateTensorName_ThrowsFormatException()
    {
        byte[] bytes = new GgufBuilder().F32("a", 4).F32("a", 4).Build();

        Assert.Contains("twice", ReadFails(bytes).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_TruncatedGgufHeader_ThrowsFormatExceptionAtEveryCut()
    {
        byte[] bytes = new GgufBuilder().String("general.architecture", "llama").F32("a", 4).Build(out long dataStart);

        for (int cut = 0; cut < dataStart - 4; cut++)
        {
            Assert.Throws<ModelFormatException>(() => Read(bytes[..cut], $"cut{cut}.gguf"));
        }
    }

    [Fact]
    public void Read_ReferenceFixtureFromHuggingFaceGguf_MatchesTheReferenceParser()
    {
        string dir = Path.Combine(ModelTestPaths.SourceDirectory(), "Fixtures");
        using JsonDocument expected = JsonDocument.Parse(File.ReadAllText(Path.Combine(dir, "reference-v3.gguf.expected.json")));

        TensorIndex index = TensorIndex.Read(Path.Combine(dir, "reference-v3.gguf"));

        JsonElement[] tensors = [.. expected.RootElement.GetProperty("tensors").EnumerateArray()];
        Assert.Equal(tensors.Length, index.Tensors.Count);
        for (int i = 0; i < tensors.Length; i++)
        {
            Assert.Equal(tensors[i].GetProperty("name").GetString(), index.Tensors[i].Name);
            Assert.Equal(tensors[i].GetProperty("offset").GetInt64(), index.Tensors[i].Offset);
            Assert.Equal(tensors[i].GetProperty("shape").EnumerateArray().Select(e => e.GetInt64()), index.Tensors[i].Shape);
        }

        Assert.Equal(["F16", "Q8_0", "Q4_K", "F32"], index.Tensors.Select(t => t.DType));
        Assert.Equal(new FileInfo(index.Path).Length, index.Tensors[^1].End);
    }
}
