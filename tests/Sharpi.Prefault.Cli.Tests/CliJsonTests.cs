namespace Sharpi.Prefault.Tests.Cli;

/// <summary>docs/cli.md's JSON contracts for the commands that gained --json, and fincore's page counts.</summary>
public sealed class CliJsonTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Evict_Json_ListsEachFile()
    {
        using TestFile file = TestFile.Create(TestFile.MiB, evict: false);

        CliRun run = CliRun.Of("evict", file.Path, "--json");

        Assert.Equal(0, run.ExitCode);
        JsonElement entry = run.Json().GetProperty("files")[0];
        Assert.Equal(["file", "bytes", "evictedBytes", "ranges", "residentBytesAfter"], JsonShape.Names(entry));
        Assert.Equal(TestFile.MiB, entry.GetProperty("evictedBytes").GetInt64());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public void Lock_Json_IsOneDocumentWhenTheLockEnds()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);

        using CliProcess tool = CliProcess.Start(["lock", file.Path, "--json"]);
        bool held = tool.WaitFor("holding", TimeSpan.FromSeconds(20));
        tool.Signal("INT");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(20));

        Assert.True(held, run.Err);
        Assert.Equal(0, run.ExitCode);
        JsonElement json = run.Json();
        Assert.Equal(["lockedBytes", "requestedBytes", "lockedPageBytes", "unlocked", "failures"], JsonShape.Names(json));
        Assert.Equal(TestFile.MiB, json.GetProperty("lockedBytes").GetInt64());
        Assert.Equal(TestFile.MiB, json.GetProperty("lockedPageBytes").GetInt64());
        Assert.True(json.GetProperty("unlocked").GetBoolean());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Resident_Text_HasAPagesColumn()
    {
        using TestFile file = TestFile.Create(TestFile.MiB, evict: false);
        _ = File.ReadAllBytes(file.Path);

        CliRun run = CliRun.Of("resident", file.Path);

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("PAGES", run.Out);
        Assert.Contains($" {TestFile.MiB / Environment.SystemPageSize} ", run.Out);
    }

    [Theory]
    [InlineData("touch")]
    [InlineData("lock")]
    public void Json_OfAMissingFile_ListsItInFailures(string command)
    {
        using var model = new CliModelFiles();
        string missing = Path.Combine(model.Directory, "nope.gguf");

        CliRun run = CliRun.Of(command, missing, "--json");

        Assert.Equal(1, run.ExitCode);
        JsonElement failures = run.Json().GetProperty("failures");
        Assert.Contains(failures.EnumerateArray(), f => f.GetProperty("name").GetString() == missing && f.GetProperty("message").GetString() == "no such file.");
    }
}
