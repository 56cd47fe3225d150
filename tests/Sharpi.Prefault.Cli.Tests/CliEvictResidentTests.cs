namespace Sharpi.Prefault.Tests.Cli;

public sealed class CliEvictResidentTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Evict_MakesAResidentFileCold()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB, evict: false);
        _ = File.ReadAllBytes(file.Path);
        Assert.True(Residency.OfFile(file.Path).Percent > 50);

        CliRun run = CliRun.Of("evict", file.Path);

        Assert.Equal(0, run.ExitCode);
        Assert.True(Residency.OfFile(file.Path).Percent < 1);
    }

    /// <summary>
    /// A tmpfs file's pages are its only copy: evict drops none of them, and says so. It said the pages still resident
    /// "are mapped by a live process or dirty", which sent the reader looking for a process that held none.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Tmpfs))]
    public void Evict_OfAFileOnTmpfs_SaysTheFileSystemKeepsItInMemory()
    {
        using TmpfsMount tmpfs = TmpfsMount.Create(16 * TestFile.MiB);
        string path = Path.Combine(tmpfs.Path, "weights.bin");
        File.WriteAllBytes(path, new byte[4 * TestFile.MiB]);

        CliRun run = CliRun.Of("evict", path);

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("4.00 MiB of 4.00 MiB still resident", run.Out, StringComparison.Ordinal);
        Assert.Contains("on tmpfs", run.Err, StringComparison.Ordinal);
        Assert.DoesNotContain("mapped by a live process", run.Err, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void EvictAndResident_OfAnEightTiBSparseFile_Succeed()
    {
        // Before, evict dropped the pages and then failed measuring what was left: one view of 8 TiB is not to be had.
        string path = Path.Combine(Path.GetTempPath(), $"sharpi-sparse-{Guid.NewGuid():N}.bin");
        using (var stream = new FileStream(path, FileMode.CreateNew))
        {
            stream.SetLength(8L << 40);
        }

        try
        {
            CliRun evict = CliRun.Of("evict", path, "--json");
            CliRun resident = CliRun.Of("resident", path, "--json");

            Assert.True(evict.ExitCode == 0, evict.Err);
            Assert.Equal(0, evict.Json().GetProperty("files")[0].GetProperty("residentBytesAfter").GetInt64());
            Assert.True(resident.ExitCode == 0, resident.Err);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Resident_Json_ReportsTheFileAndEveryTensor()
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();
        CliModelFiles.Evict(gguf);

        CliRun run = CliRun.Of("resident", gguf, "--json");

        Assert.Equal(0, run.ExitCode);
        JsonElement json = run.Json();
        Assert.Equal(["files"], JsonShape.Names(json));
        JsonElement file = json.GetProperty("files")[0];
        Assert.Equal(["file", "bytes", "residentBytes", "tensors", "pages", "residentPages"], JsonShape.Names(file));
        Assert.Equal((new FileInfo(gguf).Length + Environment.SystemPageSize - 1) / Environment.SystemPageSize, file.GetProperty("pages").GetInt64());
        Assert.Equal(new FileInfo(gguf).Length, file.GetProperty("bytes").GetInt64());
        JsonElement[] tensors = [.. file.GetProperty("tensors").EnumerateArray()];
        Assert.Equal(CliModelFiles.TensorNames, tensors.Select(t => t.GetProperty("name").GetString()));
        Assert.Equal(["name", "bytes", "residentBytes"], JsonShape.Names(tensors[0]));
        Assert.All(tensors, t => Assert.Equal(0, t.GetProperty("residentBytes").GetInt64()));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Resident_AfterTouchingOneLayer_ShowsThatLayerResident()
    {
        using var model = new CliModelFiles();
        string safetensors = model.Safetensors();
        CliModelFiles.Evict(safetensors);
        Assert.Equal(0, CliRun.Of("touch", safetensors, "--tensor", "model.layers.1.*", "--gate", "always").ExitCode);

        JsonElement[] tensors = [.. CliRun.Of("resident", safetensors, "--json").Json().GetProperty("files")[0].GetProperty("tensors").EnumerateArray()];

        // Only layer 1 is asserted: the kernel's fault read-around (read_ahead_kb, often megabytes) may bring its neighbours too.
        JsonElement[] layer1 = [.. tensors.Where(t => t.GetProperty("name").GetString()!.StartsWith("model.layers.1.", StringComparison.Ordinal))];
        Assert.Equal(2, layer1.Length);
        Assert.All(layer1, t => Assert.Equal(t.GetProperty("bytes").GetInt64(), t.GetProperty("residentBytes").GetInt64()));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Resident_Text_SummarizesByLayer()
    {
        using var model = new CliModelFiles();

        CliRun run = CliRun.Of("resident", model.Gguf());

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("blk.0 (2 tensors)", run.Out);
        Assert.Contains("token_embd (1 tensor)", run.Out);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Evict_WithATensorGlob_DropsOnlyThoseTensors()
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();
        CliModelFiles.Evict(gguf);
        CliModelFiles.CacheInSmallPages(gguf);

        CliRun run = CliRun.Of("evict", gguf, "--tensor", "blk.0.*");

        Assert.Equal(0, run.ExitCode);
        JsonElement[] tensors = [.. CliRun.Of("resident", gguf, "--json").Json().GetProperty("files")[0].GetProperty("tensors").EnumerateArray()];
        Assert.Equal(0, tensors.Single(t => t.GetProperty("name").GetString() == "blk.0.attn_q.weight").GetProperty("residentBytes").GetInt64());
        JsonElement other = tensors.Single(t => t.GetProperty("name").GetString() == "blk.1.attn_q.weight");
        Assert.Equal(other.GetProperty("bytes").GetInt64(), other.GetProperty("residentBytes").GetInt64());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Evict_WithATensorGlob_ReportsTheTensorsBytesAndWhatWasDropped()
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();
        CliModelFiles.Evict(gguf);
        CliModelFiles.CacheInSmallPages(gguf);

        CliRun run = CliRun.Of("evict", gguf, "--tensor", "blk.0.*", "--json");

        Assert.Equal(0, run.ExitCode);
        JsonElement file = run.Json().GetProperty("files")[0];
        Assert.Equal(2 * CliModelFiles.TensorBytes, file.GetProperty("bytes").GetInt64());
        Assert.Equal(2 * CliModelFiles.TensorBytes, file.GetProperty("evictedBytes").GetInt64());
        Assert.Equal(0, file.GetProperty("residentBytesAfter").GetInt64());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Evict_OfAColdFile_SaysNothingWasDropped()
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();
        CliModelFiles.Evict(gguf);

        CliRun json = CliRun.Of("evict", gguf, "--tensor", "blk.0.*", "--json");
        CliRun text = CliRun.Of("evict", gguf, "--tensor", "blk.0.*");

        JsonElement file = json.Json().GetProperty("files")[0];
        Assert.Equal(2 * CliModelFiles.TensorBytes, file.GetProperty("bytes").GetInt64());
        Assert.Equal(0, file.GetProperty("evictedBytes").GetInt64());
        Assert.Contains(": evicted 0 B in 1 range(s); 0 B of 512.00 KiB still resident", text.Out);
    }
}
