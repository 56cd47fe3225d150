using System.Text;

namespace Sharpi.Prefault.Tests.Models;

/// <summary>GGUF names are bytes: two names that differ only in invalid UTF-8 are two tensors, as llama.cpp sees them.</summary>
public sealed class TensorNameBytesTests() : ModelFileTests("model.gguf")
{
    private static readonly byte[] NameFF = [.. "blk."u8, 0xFF, .. ".w"u8];
    private static readonly byte[] NameFE = [.. "blk."u8, 0xFE, .. ".w"u8];

    [Fact]
    public void Read_TwoNamesOfDistinctInvalidBytes_ListsBothDistinct()
    {
        TensorIndex index = Read(new GgufBuilder().F32(NameFF, 8).F32(NameFE, 8).Build());

        Assert.Equal(["blk.\uDCFF.w", "blk.\uDCFE.w"], index.Tensors.Select(t => t.Name));
        Assert.Equal(NameFF, TensorInfo.EncodeName(index.Tensors[0].Name));
        Assert.Equal(NameFE, TensorInfo.EncodeName(index.Tensors[1].Name));
    }

    [Fact]
    public void Select_GlobOverEscapedBytes_MatchesOrdinally()
    {
        TensorIndex index = Read(new GgufBuilder().F32(NameFF, 8).F32(NameFE, 8).F32("blk.0.w", 8).Build());

        Assert.Equal(3, index.Select(new TensorSelection(include: ["blk.?.w"])).Count);
        Assert.Equal(["blk.\uDCFE.w"], index.Select(new TensorSelection(include: ["blk.\uDCFE.*"])).Select(t => t.Name));
        Assert.Equal(["blk.\uDCFF.w", "blk.\uDCFE.w"], index.Select(new TensorSelection(exclude: ["blk.0.*"])).Select(t => t.Name));
        Assert.Empty(index.Select(new TensorSelection(include: ["blk.\uFFFD.w"])));
    }

    [Fact]
    public void Read_TheSameInvalidBytesTwice_IsRefusedAsADuplicate()
    {
        ModelFormatException e = ReadFails(new GgufBuilder().F32(NameFF, 8).F32(NameFF, 8).Build());

        Assert.Contains("appears twice", e.Message, StringComparison.Ordinal);
        Assert.Contains("\uDCFF", e.Message, StringComparison.Ordinal);
    }

    // The expected names as UTF-16 code units: an attribute cannot carry a lone surrogate in a string.
    [Theory]
    [InlineData(new byte[] { 0x61, 0xFF, 0x62 }, new int[] { 'a', 0xDCFF, 'b' })]
    [InlineData(new byte[] { 0xE2, 0x82 }, new int[] { 0xDCE2, 0xDC82 })]                  // a three-byte sequence cut short
    [InlineData(new byte[] { 0xC0, 0x80 }, new int[] { 0xDCC0, 0xDC80 })]                  // overlong NUL
    [InlineData(new byte[] { 0xED, 0xB3, 0xBF }, new int[] { 0xDCED, 0xDCB3, 0xDCBF })]    // U+DCFF itself, encoded: not valid UTF-8
    [InlineData(new byte[] { 0xF0, 0x9F, 0x98, 0x80, 0x80 }, new int[] { 0xD83D, 0xDE00, 0xDC80 })]
    [InlineData(new byte[] { 0xEF, 0xBF, 0xBD }, new int[] { 0xFFFD })]                    // a real U+FFFD stays itself
    public void DecodeName_InvalidBytes_EscapesEachAndEncodesBack(byte[] bytes, int[] expected)
    {
        string name = TensorInfo.DecodeName(bytes);

        Assert.Equal(new string([.. expected.Select(c => (char)c)]), name);
        Assert.Equal(bytes, TensorInfo.EncodeName(name));
    }

    [Fact]
    public void DecodeName_ValidUtf8_IsTheUsualString()
    {
        byte[] bytes = Encoding.UTF8.GetBytes("blk.0.ffn_up_exps.weight-\u00e9\U0001F600");

        Assert.Equal("blk.0.ffn_up_exps.weight-\u00e9\U0001F600", TensorInfo.DecodeName(bytes));
    }

    [Fact]
    public void EncodeName_LoneSurrogateNoDecodingGives_Throws()
    {
        Assert.Throws<ArgumentException>(() => TensorInfo.EncodeName("a\uD800b"));
        Assert.Throws<ArgumentException>(() => TensorInfo.EncodeName("a\uDC7F"));
    }
}
