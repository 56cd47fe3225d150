using System.Text.Json;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary><c>resident</c> reads headers to find tensors; the pages that read brings in are not the file's residency.</summary>
public sealed class CliResidentHeadTests
{
    [LinuxFact]
    public void Resident_OfAnEvictedGguf_CountsNoPageItsOwnHeaderReadBroughtIn()
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();
        CliModelFiles.Evict(gguf);

        JsonElement file = CliRun.Of("resident", gguf, "--json").Json().GetProperty("files")[0];

        Assert.Equal(0, file.GetProperty("residentBytes").GetInt64());
        Assert.Equal(0, file.GetProperty("residentPages").GetInt64());
    }

    [LinuxFact]
    public void Resident_OfAnEvictedShardedModel_CountsNoPageItsOwnHeaderReadsBroughtIn()
    {
        using var model = new CliModelFiles();
        string index = model.Sharded();
        foreach (string shard in Directory.GetFiles(model.Directory, "*.safetensors"))
        {
            CliModelFiles.Evict(shard);
        }

        JsonElement[] files = [.. CliRun.Of("resident", index, "--json").Json().GetProperty("files").EnumerateArray()];

        Assert.Equal(2, files.Length);
        Assert.All(files, f => Assert.Equal(0, f.GetProperty("residentBytes").GetInt64()));
    }

    [LinuxFact]
    public void Resident_OfACachedGguf_StillCountsTheHeader()
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();
        _ = File.ReadAllBytes(gguf);

        JsonElement file = CliRun.Of("resident", gguf, "--json").Json().GetProperty("files")[0];

        Assert.Equal(new FileInfo(gguf).Length, file.GetProperty("residentBytes").GetInt64());
    }
}
