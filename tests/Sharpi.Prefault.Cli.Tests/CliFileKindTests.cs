namespace Sharpi.Prefault.Tests.Cli;

/// <summary>FIFOs, directories and thousands of files: each command refuses or handles them, and never hangs.</summary>
public sealed class CliFileKindTests
{
    private static readonly TimeSpan HangBound = TimeSpan.FromSeconds(20);

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData("touch")]
    [InlineData("resident")]
    [InlineData("evict")]
    [InlineData("tensors")]
    [InlineData("lock")]
    public void AFifo_IsRefusedWithoutBlocking(string command)
    {
        using var model = new CliModelFiles();
        string fifo = model.Fifo("model.gguf");

        CliRun run = CliProcess.Run([command, fifo], timeout: HangBound);

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"{fifo}: is a FIFO", run.Err);
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData("touch")]
    [InlineData("resident")]
    [InlineData("tensors")]
    public void AShardedIndexNamingAFifoShard_IsRefusedWithoutBlocking(string command)
    {
        using var model = new CliModelFiles();
        model.Fifo("shard.safetensors");
        string index = model.WriteIndex(["\"a.weight\": \"shard.safetensors\""]);

        CliRun run = CliProcess.Run([command, index], timeout: HangBound);

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("a FIFO", run.Err);
    }

    [Fact]
    public void ADirectoryUsedAsAShard_IsADirectoryNotPermissionDenied()
    {
        using var model = new CliModelFiles();
        Directory.CreateDirectory(Path.Combine(model.Directory, "shard.safetensors"));
        string index = model.WriteIndex(["\"a.weight\": \"shard.safetensors\""]);

        CliRun run = CliRun.Of("tensors", index);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("is a directory", run.Err);
        Assert.DoesNotContain("permission denied", run.Err);
    }

    [Fact]
    public void ADirectoryWithoutR_IsAnErrorNamingR()
    {
        using var model = new CliModelFiles();
        model.Gguf();

        CliRun run = CliRun.Of("resident", model.Directory);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"{model.Directory}: is a directory; pass -r", run.Err);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void ADirectoryWithR_IsEveryRegularFileUnderIt()
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();
        Directory.CreateDirectory(Path.Combine(model.Directory, "sub"));
        string config = model.Write(Path.Combine("sub", "config.json"), "{\"hidden_size\": 64}");
        model.Fifo("pipe");

        CliRun run = CliRun.Of("resident", "-r", model.Directory, "--json");

        Assert.Equal(0, run.ExitCode);
        string[] files = [.. run.Json().GetProperty("files").EnumerateArray().Select(f => f.GetProperty("file").GetString()!)];
        Assert.Equal([gguf, config], files);
        Assert.Contains("pipe: skipped", run.Err);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void TouchAndResident_OverMoreFilesThanTheDescriptorLimit_Succeed()
    {
        using var model = new CliModelFiles();
        for (int i = 0; i < 300; i++)
        {
            model.Write($"f{i:000}.bin", new byte[4096]);
        }

        foreach (string command in new[] { "touch --gate always", "resident --json" })
        {
            CliRun run = CliProcess.RunShell($"ulimit -n 256 && exec $TOOL {command} {model.Directory}/*.bin", timeout: TimeSpan.FromSeconds(60));

            NoStackTrace.In(run);
            Assert.True(run.ExitCode == 0, $"{command}: exit {run.ExitCode}: {run.Err}");
            Assert.DoesNotContain("too many open files", run.Err, StringComparison.OrdinalIgnoreCase);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable2MiB))] // 300 files of one 4 KiB page: 1.17 MiB
    public void Lock_OverMoreFilesThanTheDescriptorLimit_LocksThemAll()
    {
        using var model = new CliModelFiles();
        for (int i = 0; i < 300; i++)
        {
            model.Write($"f{i:000}.bin", new byte[4096]);
        }

        using CliProcess tool = CliProcess.StartShell($"ulimit -n 256 && exec $TOOL lock {model.Directory}/*.bin");
        bool held = tool.WaitFor("holding", TimeSpan.FromSeconds(30));
        tool.Signal("TERM");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(30));

        NoStackTrace.In(run);
        Assert.DoesNotContain("too many open files", run.Err, StringComparison.OrdinalIgnoreCase);
        Assert.True(held, run.Err);
        Assert.Equal(0, run.ExitCode);
        Assert.Contains("locked 1.17 MiB of 1.17 MiB in 300 file(s)", run.Out);
    }

    [Fact]
    public void TouchOfAShardIndex_TouchesTheShardsNotTheJson()
    {
        using var model = new CliModelFiles();
        string index = model.Sharded();

        CliRun run = CliRun.Of("touch", index, "--gate", "always", "--json");

        Assert.Equal(0, run.ExitCode);
        JsonElement[] files = [.. run.Json().GetProperty("files").EnumerateArray()];
        Assert.Equal(
            [Path.Combine(model.Directory, "model-00001-of-00002.safetensors"), Path.Combine(model.Directory, "model-00002-of-00002.safetensors")],
            files.Select(f => f.GetProperty("file").GetString()));
        Assert.All(files, f => Assert.True(f.GetProperty("bytes").GetInt64() > 2 * CliModelFiles.TensorBytes));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable2MiB))] // four 256 KiB tensors and the shards' headers
    public async Task LockOfAShardIndex_LocksTheShards()
    {
        using var model = new CliModelFiles();
        string index = model.Sharded();
        using var output = new StringWriter();
        using var error = new StringWriter();
        TextWriter syncOut = TextWriter.Synchronized(output);
        using var cancel = new CancellationTokenSource();

        Task<int> run = Sharpi.Prefault.Cli.CliApp.RunAsync(["lock", index], syncOut, TextWriter.Synchronized(error), cancel.Token);
        for (int i = 0; i < 300 && !run.IsCompleted && !output.ToString().Contains("holding", StringComparison.Ordinal); i++)
        {
            await Task.Delay(20);
        }

        await cancel.CancelAsync();
        int exitCode = await run;

        Assert.True(exitCode == 0, $"exit {exitCode}: {error}");
        // The shards (whole pages of each), not the index's few hundred bytes.
        // Every byte of both shards locked, none of the index: "locked X of X (Y in whole pages) in 2 file(s)".
        Assert.Matches(@"locked (\S+ \S+) of \1( \(\S+ \S+ in whole pages\))? in 2 file\(s\)", output.ToString());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void EvictOfAShardIndex_EvictsTheShards()
    {
        using var model = new CliModelFiles();
        string index = model.Sharded();
        string shard = Path.Combine(model.Directory, "model-00001-of-00002.safetensors");
        _ = File.ReadAllBytes(shard);

        CliRun run = CliRun.Of("evict", index, "--json");

        Assert.Equal(0, run.ExitCode);
        Assert.Equal(2, run.Json().GetProperty("files").GetArrayLength());
        Assert.True(Residency.OfFile(shard).Percent < 1);
    }
}
