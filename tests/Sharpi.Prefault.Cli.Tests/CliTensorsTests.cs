namespace Sharpi.Prefault.Tests.Cli;

public sealed class CliTensorsTests
{
    [Fact]
    public void Tensors_Json_OfAGguf_MatchesTheIndexInFileOrder()
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();

        CliRun run = CliRun.Of("tensors", gguf, "--json");

        Assert.Equal(0, run.ExitCode);
        JsonElement[] rows = [.. run.Json().EnumerateArray()];
        IReadOnlyList<TensorInfo> expected = TensorIndex.Read(gguf).Tensors;
        Assert.Equal(expected.Count, rows.Length);
        for (int i = 0; i < rows.Length; i++)
        {
            Assert.Equal(["name", "offset", "length", "dtype", "shape"], JsonShape.Names(rows[i]));
            Assert.Equal(expected[i].Name, rows[i].GetProperty("name").GetString());
            Assert.Equal(expected[i].Offset, rows[i].GetProperty("offset").GetInt64());
            Assert.Equal(expected[i].Length, rows[i].GetProperty("length").GetInt64());
            Assert.Equal("F32", rows[i].GetProperty("dtype").GetString());
            Assert.Equal(expected[i].Shape, rows[i].GetProperty("shape").EnumerateArray().Select(d => d.GetInt64()));
        }
    }

    [Fact]
    public void Tensors_Json_OfASafetensorsFile_GivesAbsoluteOffsets()
    {
        using var model = new CliModelFiles();
        string path = model.Safetensors();

        JsonElement first = CliRun.Of("tensors", path, "--json").Json()[0];

        long headerLength = BitConverter.ToInt64(File.ReadAllBytes(path), 0);
        Assert.Equal(8 + headerLength, first.GetProperty("offset").GetInt64());
        Assert.Equal("BF16", first.GetProperty("dtype").GetString());
    }

    [Fact]
    public void Tensors_Text_ListsEveryTensor()
    {
        using var model = new CliModelFiles();

        CliRun run = CliRun.Of("tensors", model.Gguf());

        Assert.Equal(0, run.ExitCode);
        foreach (string name in CliModelFiles.TensorNames)
        {
            Assert.Contains(name, run.Out);
        }
    }

    [Fact]
    public void Tensors_OfACorruptModel_NamesTheFileAndExitsWithOne()
    {
        using var model = new CliModelFiles();
        string bad = model.Write("bad.gguf", "GGUF\u0003\0\0\0 not really"u8.ToArray());

        CliRun run = CliRun.Of("tensors", bad);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("bad.gguf", run.Err);
        Assert.DoesNotContain("   at ", run.Err);
    }

    [Fact]
    public void Tensors_OfAPlainFile_SaysItIsNotAModel()
    {
        using TestFile plain = TestFile.Create(4096, evict: false);

        CliRun run = CliRun.Of("tensors", plain.Path);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("not a GGUF or safetensors model", run.Err);
    }
}
