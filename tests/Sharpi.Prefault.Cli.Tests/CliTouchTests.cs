namespace Sharpi.Prefault.Tests.Cli;

public sealed class CliTouchTests
{
    private static readonly string[] Methods = ["populate", "touch", "hint", "none"];

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Touch_MakesAnEvictedFileResident()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        Assert.True(Residency.OfFile(file.Path).Percent < 50);

        CliRun run = CliRun.Of("touch", file.Path, "--gate", "always");

        Assert.Equal(0, run.ExitCode);
        Assert.Equal(100, Residency.OfFile(file.Path).Percent);
        Assert.Contains("touched 1 file(s)", run.Out);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Touch_Json_HasTheContractsFields()
    {
        using TestFile file = TestFile.Create(4 * TestFile.MiB);

        JsonElement json = CliRun.Of("touch", file.Path, "--json", "--gate", "always").Json();

        JsonShape.HasProperties(json, "ran", "bytes", "bytesAlreadyResident", "seconds", "gibPerSecond", "method", "reason", "files");
        Assert.True(json.GetProperty("ran").GetBoolean());
        Assert.Equal(4 * TestFile.MiB, json.GetProperty("bytes").GetInt64());
        Assert.Contains(json.GetProperty("method").GetString(), Methods);
        Assert.Equal(JsonValueKind.Number, json.GetProperty("seconds").ValueKind);
        Assert.Equal(JsonValueKind.Number, json.GetProperty("gibPerSecond").ValueKind);
        Assert.Equal(file.Path, json.GetProperty("files")[0].GetProperty("file").GetString());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Touch_WithAMissingFile_TouchesTheRestAndExitsWithOne()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        string missing = file.Path + ".missing";

        CliRun run = CliRun.Of("touch", missing, file.Path, "--gate", "always");

        Assert.Equal(1, run.ExitCode);
        Assert.Contains(missing, run.Err);
        Assert.Equal(100, Residency.OfFile(file.Path).Percent);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Touch_WithATensorGlob_PrefaultsOnlyThoseTensors()
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();
        CliModelFiles.Evict(gguf);

        CliRun run = CliRun.Of("touch", gguf, "--tensor", "blk.1.*", "--gate", "always", "--json");

        Assert.Equal(0, run.ExitCode);
        JsonElement file = run.Json().GetProperty("files")[0];
        Assert.Equal(2, file.GetProperty("tensors").GetInt32());
        Assert.Equal(2 * CliModelFiles.TensorBytes, file.GetProperty("bytes").GetInt64());
        Assert.Equal(2 * CliModelFiles.TensorBytes, run.Json().GetProperty("bytes").GetInt64());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Touch_WithASelectionThatLeavesNothing_SaysNoBytesWereSelected_AndExitsWithOne()
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();

        CliRun run = CliRun.Of("touch", gguf, "--tensor", "blk*", "--exclude", "blk*");

        Assert.Equal(1, run.ExitCode); // as lock and keep: a selection that left nothing is no success
        Assert.Contains("no bytes selected", run.Out + run.Err, StringComparison.Ordinal);
        Assert.DoesNotContain("the files are empty", run.Out, StringComparison.Ordinal);
    }

    [Fact]
    public void Touch_OfAnEmptyFile_Succeeds()
    {
        string empty = Path.GetTempFileName();
        try
        {
            CliRun run = CliRun.Of("touch", empty);

            Assert.Equal(0, run.ExitCode);
        }
        finally
        {
            File.Delete(empty);
        }
    }
}
