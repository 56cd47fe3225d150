namespace Sharpi.Prefault.Tests.Cli;

/// <summary>What a newcomer reads from a normal run: lines within 100 columns, the thread count explained, a selection of
/// nothing said on stderr, no progress line for work done in under a second with stderr redirected.</summary>
public sealed class CliOutputShapeTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Touch_OnTwoCores_KeepsEveryLineWithin100Columns_AndSaysWhyEightThreads()
    {
        using TestFile file = TestFile.Create(256 * TestFile.MiB); // eight 32 MiB chunks, one a thread

        CliRun run = CliProcess.Run(["touch", file.Path, "--gate", "always"], new Dictionary<string, string?> { ["DOTNET_PROCESSOR_COUNT"] = "2" });

        Assert.Equal(0, run.ExitCode);
        Assert.All((run.Out + run.Err).Split('\n'), line => Assert.True(line.Length <= 100, $"{line.Length} columns: '{line}'"));
        Assert.Contains("8 threads: the I/O-bound default, at least 8 whatever the cores (2 here)", run.Out);
    }

    [Fact]
    public void Touch_WithAGlobMatchingNothing_SaysSoOnStderrAlone()
    {
        using var model = new CliModelFiles();

        CliRun run = CliRun.Of("touch", model.Gguf(), "--tensor", "nomatch*", "--gate", "always");

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("--tensor 'nomatch*': matches no tensor", run.Err);
        Assert.DoesNotContain("no file could be used", run.Out + run.Err);
        Assert.Equal(string.Empty, run.Out);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public void Lock_OfASmallFile_WithStderrRedirected_DrawsNoProgress()
    {
        using var model = new CliModelFiles();
        string small = model.Write("small.bin", new byte[424]);
        using CliProcess tool = CliProcess.Start(["lock", small]);
        Assert.True(tool.WaitFor("holding", TimeSpan.FromSeconds(20)), tool.Err);
        tool.Signal("TERM");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(20));

        Assert.Equal(0, run.ExitCode);
        Assert.DoesNotContain("progress:", run.Err);
        Assert.DoesNotContain("ETA", run.Out + run.Err);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Touch_AfterEvict_CountsNoneOfItsOwnReadsAsAlreadyResident()
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();
        string plain = model.Write("plain.bin", new byte[4 * 1024 * 1024]);
        Assert.Equal(0, CliRun.Of("evict", gguf, plain).ExitCode);

        CliRun run = CliRun.Of("touch", gguf, plain, "--gate", "always", "--json");

        Assert.Equal(0, run.ExitCode);
        Assert.True(run.Json().GetProperty("bytes").GetInt64() > 0, run.Out);
        Assert.Equal(0, run.Json().GetProperty("bytesAlreadyResident").GetInt64());
    }
}
