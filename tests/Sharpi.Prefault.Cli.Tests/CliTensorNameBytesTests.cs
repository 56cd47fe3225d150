using Sharpi.Prefault.Tests.Models;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary><c>tensors</c> lists a GGUF whose names differ only in invalid UTF-8 bytes, each name its own.</summary>
public sealed class CliTensorNameBytesTests
{
    [Fact]
    public void Tensors_Json_OfNamesOfDistinctInvalidBytes_ListsBothAsTheirEscapes()
    {
        using var directory = new TempModelDirectory();
        string gguf = directory.Write("bytes.gguf", new GgufBuilder().F32([.. "blk."u8, 0xFF, .. ".w"u8], 8).F32([.. "blk."u8, 0xFE, .. ".w"u8], 8).Build());

        CliRun run = CliRun.Of("tensors", gguf, "--json");

        Assert.Equal(0, run.ExitCode);
        // System.Text.Json's GetString refuses a lone surrogate escape; the raw text is the escape itself.
        Assert.Equal(["\"blk.\\udcff.w\"", "\"blk.\\udcfe.w\""], run.Json().EnumerateArray().Select(row => row.GetProperty("name").GetRawText()));
    }
}
