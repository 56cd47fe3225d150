namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// A directory of more small files than vm.max_map_count (65,530) allows mappings. Every file the tool maps is a
/// mapping; kept all at once, they took the tool past the limit, and the runtime aborted it ("Failed to create RW
/// mapping for RX memory", exit 134, nothing on stdout). The tool runs as a child process: the test host survives that.
/// </summary>
public sealed class CliMapCountTests(CliMapCountTests.ManyFiles files, ITestOutputHelper output) : IClassFixture<CliMapCountTests.ManyFiles>
{
    private const int Count = 70_000;

    /// <summary>touch needs each file only for its sweep: it unmaps them batch by batch and touches every one.</summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux), nameof(Requirements.MapCountBelow70000))]
    public void TouchRecursive_OverMoreFilesThanTheMapCountAllows_TouchesEveryFile()
    {
        CliRun run = CliProcess.Run(["touch", "-r", files.Directory, "--json"], timeout: TimeSpan.FromSeconds(120));

        output.WriteLine($"exit {run.ExitCode}\n{run.Err[..Math.Min(run.Err.Length, 2000)]}");
        NoStackTrace.In(run);
        Assert.Equal(0, run.ExitCode);
        var json = run.Json();
        Assert.Equal(Count, json.GetProperty("files").GetArrayLength());
        Assert.Equal(Count, json.GetProperty("bytesRequested").GetInt64());
        Assert.Equal(0, json.GetProperty("failures").GetArrayLength());
    }

    /// <summary>lock must hold its mappings: it locks the files that fit under the limit and names each one that does not.</summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable70000Pages), nameof(Requirements.MapCountBelow70000))]
    public void LockRecursive_OverMoreFilesThanTheMapCountAllows_LocksWhatFits_AndNamesEachFileLeftOut()
    {
        using CliProcess tool = CliProcess.Start(["lock", "-r", files.Directory]);
        bool held = tool.WaitFor("holding", TimeSpan.FromSeconds(120));
        tool.Signal("TERM");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(60));

        output.WriteLine($"exit {run.ExitCode}\n{run.Out}\n{run.Err[..Math.Min(run.Err.Length, 2000)]}");
        NoStackTrace.In(run);
        Assert.True(held, "the tool should lock what fits and hold it");
        Assert.Equal(1, run.ExitCode);
        string[] leftOut = [.. run.Err.Split('\n').Where(l => l.Contains(": not mapped: ", StringComparison.Ordinal))];
        Assert.NotEmpty(leftOut);
        Assert.All(leftOut, l => Assert.Contains("vm.max_map_count", l, StringComparison.Ordinal));
        int locked = int.Parse(System.Text.RegularExpressions.Regex.Match(run.Out, @" in (\d+) file\(s\)").Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture);
        Assert.Equal(Count, locked + leftOut.Length);
        Assert.Contains("unlocked", run.Out, StringComparison.Ordinal);
    }

    /// <summary>The directory of one-byte files, made once for the class.</summary>
    public sealed class ManyFiles : IDisposable
    {
        public ManyFiles()
        {
            Directory = Path.Combine(Path.GetTempPath(), $"sharpi-many-{Guid.NewGuid():N}");
            System.IO.Directory.CreateDirectory(Directory);
            byte[] one = [1];
            for (int i = 0; i < Count; i++)
            {
                File.WriteAllBytes(Path.Combine(Directory, $"f{i:D5}"), one);
            }
        }

        public string Directory { get; }

        public void Dispose() => System.IO.Directory.Delete(Directory, recursive: true);
    }
}
