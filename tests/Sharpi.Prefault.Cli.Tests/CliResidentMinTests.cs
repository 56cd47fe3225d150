namespace Sharpi.Prefault.Tests.Cli;

/// <summary>docs/cli.md's readiness probe: <c>resident --min PERCENT</c> exits 0 only when every file meets it, 1 with one line naming those that do not.</summary>
public sealed class CliResidentMinTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void ResidentMin_EveryFileWarm_ExitsZeroWithOneLine()
    {
        using TestFile a = TestFile.Create(4 * TestFile.MiB);
        using TestFile b = TestFile.Create(4 * TestFile.MiB);
        _ = File.ReadAllBytes(a.Path);
        _ = File.ReadAllBytes(b.Path);

        CliRun run = CliRun.Of("resident", a.Path, b.Path, "--min", "100");

        Assert.True(run.ExitCode == 0, run.Out + run.Err);
        Assert.Equal($"warm: 2 file(s) at least 100% resident (lowest 100.0%: {a.Path})\n", run.Out);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void ResidentMin_OneFileCold_ExitsOneAndNamesOnlyIt()
    {
        using TestFile warm = TestFile.Create(4 * TestFile.MiB);
        using TestFile cold = TestFile.Create(4 * TestFile.MiB);
        _ = File.ReadAllBytes(warm.Path);

        CliRun run = CliRun.Of("resident", warm.Path, cold.Path, "--min", "90");

        Assert.Equal(1, run.ExitCode);
        Assert.Equal($"not warm (--min 90%): {cold.Path} 0.0%\n", run.Out);
        Assert.Empty(run.Err);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void ResidentMin_OnePageShort_IsNotMetAndNeverReadsAsAHundred()
    {
        using TestFile file = TestFile.Create(4 * TestFile.MiB);
        CliModelFiles.CacheInSmallPages(file.Path);
        PageCache.Evict(file.Path, TestFile.MiB, Environment.SystemPageSize);
        Assert.Equal(file.Length - Environment.SystemPageSize, Residency.OfFile(file.Path).ResidentBytes); // the premise: one page gone

        CliRun run = CliRun.Of("resident", file.Path, "--min", "100");
        CliRun lower = CliRun.Of("resident", file.Path, "--min", "99.9%");

        Assert.Equal(1, run.ExitCode);
        Assert.Equal($"not warm (--min 100%): {file.Path} 99.9%\n", run.Out);
        Assert.True(lower.ExitCode == 0, lower.Out + lower.Err);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void ResidentMin_WithTensor_MeasuresOnlyTheSelectedTensors()
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();
        CliModelFiles.Evict(gguf);
        foreach (TensorInfo tensor in TensorIndex.Read(gguf).Tensors.Where(t => t.Name.StartsWith("blk.0.", StringComparison.Ordinal)))
        {
            ReadRange(gguf, tensor.Offset, tensor.Length);
        }

        CliRun layer0 = CliRun.Of("resident", gguf, "--tensor", "blk.0.*", "--min", "100");
        CliRun layer1 = CliRun.Of("resident", gguf, "--tensor", "blk.1.*", "--min", "1");
        CliRun whole = CliRun.Of("resident", gguf, "--min", "50");

        Assert.True(layer0.ExitCode == 0, layer0.Out + layer0.Err);
        Assert.Equal(1, layer1.ExitCode);
        Assert.Equal($"not warm (--min 1%): {gguf} 0.0%\n", layer1.Out);
        Assert.Equal(1, whole.ExitCode);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void ResidentMin_OnAColdModel_DoesNotCountWhatItsOwnLookBroughtIn()
    {
        // GGUF's default 32-byte alignment: the first tensor starts in the header's page, which reading the header
        // caches. Measured after that read, a cold model's first tensor would pass --min 1 (page 0 is ~1.5% of it).
        using var model = new CliModelFiles();
        var builder = new Models.GgufBuilder();
        foreach (string name in CliModelFiles.TensorNames)
        {
            builder.F32(name, 1024, 64);
        }

        string gguf = model.Write("packed.gguf", builder.Build());
        TensorInfo first = TensorIndex.Read(gguf).Tensors[0];
        Assert.True(first.Offset < Environment.SystemPageSize, "the premise: the first tensor shares the header's page");
        CliModelFiles.Evict(gguf);

        CliRun tensor = CliRun.Of("resident", gguf, "--tensor", first.Name, "--min", "1");
        Assert.True(Residency.OfFile(gguf, first.Offset, first.Length).ResidentBytes > 0, "the premise: the look brought part of the first tensor in");

        // A plain file is sniffed for the GGUF magic (its first bytes read) before it is taken as plain.
        using TestFile plain = TestFile.Create(TestFile.MiB);
        CliRun whole = CliRun.Of("resident", plain.Path, "--min", "0.01");
        Assert.True(Residency.OfFile(plain.Path).ResidentBytes > 0, "the premise: the look brought part of the file in");

        Assert.Equal(1, tensor.ExitCode);
        Assert.Equal($"not warm (--min 1%): {gguf} 0.0%\n", tensor.Out);
        Assert.Equal(1, whole.ExitCode);
        Assert.Equal($"not warm (--min 0.01%): {plain.Path} 0.0%\n", whole.Out);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void ResidentMin_AMissingFile_FailsTheProbeAndSaysSo()
    {
        using TestFile warm = TestFile.Create(TestFile.MiB);
        _ = File.ReadAllBytes(warm.Path);
        string missing = warm.Path + ".missing";

        CliRun run = CliRun.Of("resident", warm.Path, missing, "--min", "0");

        Assert.Equal(1, run.ExitCode);
        Assert.Equal("not warm (--min 0%): 1 error(s) above\n", run.Out);
        Assert.Contains(missing, run.Err);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void ResidentMin_Json_GivesTheVerdictAndEachFilesFigure()
    {
        using TestFile warm = TestFile.Create(TestFile.MiB);
        using TestFile cold = TestFile.Create(TestFile.MiB);
        _ = File.ReadAllBytes(warm.Path);

        CliRun run = CliRun.Of("resident", warm.Path, cold.Path, "--min", "50", "--json");

        Assert.Equal(1, run.ExitCode);
        JsonElement json = run.Json();
        Assert.Equal(["minPercent", "met", "files", "failures"], JsonShape.Names(json));
        Assert.Equal(50, json.GetProperty("minPercent").GetDouble());
        Assert.False(json.GetProperty("met").GetBoolean());
        JsonElement[] files = [.. json.GetProperty("files").EnumerateArray()];
        Assert.Equal(["file", "bytes", "residentBytes", "percent", "met"], JsonShape.Names(files[0]));
        Assert.True(files[0].GetProperty("met").GetBoolean());
        Assert.Equal(100, files[0].GetProperty("percent").GetDouble());
        Assert.False(files[1].GetProperty("met").GetBoolean());
        Assert.Equal(0, files[1].GetProperty("residentBytes").GetInt64());
    }

    [Theory]
    [InlineData("101")]
    [InlineData("-1")]
    [InlineData("ninety")]
    [InlineData("NaN")]
    public void ResidentMin_OutsideZeroToAHundred_IsAUsageError(string value)
    {
        using TestFile file = TestFile.Create(4096);

        CliRun run = CliRun.Of("resident", file.Path, "--min", value);

        Assert.Equal(2, run.ExitCode);
        Assert.Empty(run.Out);
        NoStackTrace.In(run);
    }

    private static void ReadRange(string path, long offset, long length)
    {
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, 1, FileOptions.RandomAccess);
        stream.Position = offset;
        byte[] page = new byte[Environment.SystemPageSize];
        for (long done = 0; done < length;)
        {
            done += stream.Read(page, 0, (int)Math.Min(page.Length, length - done));
        }
    }
}
