using System.Text;

namespace Sharpi.Prefault.Tests.Models;

/// <summary>A shape whose element count or byte size does not fit 64 bits says so, not something else.</summary>
public sealed class HeaderOverflowTests() : ModelFileTests("model.safetensors")
{
    private static byte[] Safetensors(string json) => new SafetensorsBuilder { DataLength = 64 }.Build(json);

    [Fact]
    public void Safetensors_ByteSizeOverflow_SaysOverflow()
    {
        // 2^60 F64 elements fit a 64-bit count; their 2^63 bytes do not.
        string message = ReadFails(Safetensors("{\"w\":{\"dtype\":\"F64\",\"shape\":[1152921504606846976],\"data_offsets\":[0,8]}}")).Message;

        Assert.Contains("byte size (9223372036854775808 bytes) overflows", message, StringComparison.Ordinal);
        Assert.DoesNotContain("whole number", message, StringComparison.Ordinal);
    }

    [Fact]
    public void Safetensors_SubByteElementsEndingInsideAByte_SaysSo()
    {
        string message = ReadFails(Safetensors("{\"w\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}")).Message;

        Assert.Contains("do not fill a whole number of bytes", message, StringComparison.Ordinal);
        Assert.DoesNotContain("overflow", message, StringComparison.Ordinal);
    }

    [Fact]
    public void Safetensors_ManySubByteElements_FitWhereTheirBitCountWouldNot()
    {
        // 2^61 U8 elements: 2^64 bits overflow a 64-bit count, 2^61 bytes do not; the data is not there, so it fails later.
        string message = ReadFails(Safetensors("{\"w\":{\"dtype\":\"U8\",\"shape\":[2305843009213693952],\"data_offsets\":[0,2305843009213693952]}}")).Message;

        Assert.Contains("run past the end of the file", message, StringComparison.Ordinal);
    }

    [Fact]
    public void Gguf_ElementCountOverflow_SaysElementCount()
    {
        byte[] bytes = new GgufBuilder { DataLength = 32 }.Tensor("w", 0, [1L << 32, 1L << 32], 0, 0).Build();

        string message = ReadFails(bytes).Message;

        Assert.Contains("element count", message, StringComparison.Ordinal);
        Assert.Contains("overflows", message, StringComparison.Ordinal);
    }

    [Fact]
    public void Gguf_ByteSizeOverflow_SaysByteSize()
    {
        // 2^62 F32 elements fit a 64-bit count; their 2^64 bytes do not.
        byte[] bytes = new GgufBuilder { DataLength = 32 }.Tensor("w", 0, [1L << 62], 0, 0).Build();

        Assert.Contains("byte size (18446744073709551616 bytes) overflows", ReadFails(bytes).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Safetensors_NameOfInvalidUtf8_IsRefusedAsSafetensorsRequires()
    {
        byte[] json = [.. "{\"a"u8, 0xFF, .. "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}"u8];
        byte[] bytes = [.. GgufBuilder.U64((ulong)json.Length), .. json, .. new byte[8]];

        Assert.Contains("not valid Unicode", ReadFails(bytes).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Safetensors_NameWithALoneSurrogateEscape_IsRefused()
    {
        byte[] bytes = Safetensors("{\"a\\udcff\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}");

        Assert.Contains("not valid Unicode", ReadFails(bytes).Message, StringComparison.Ordinal);
    }
}
