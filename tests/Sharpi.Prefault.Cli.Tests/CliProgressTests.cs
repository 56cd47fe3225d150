using System.Text.RegularExpressions;

namespace Sharpi.Prefault.Tests.Cli;

public sealed class CliProgressTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.IoThrottle))]
    public void Touch_WithStderrRedirected_WritesPlainProgressLines()
    {
        // 384 MiB of real bytes (a sparse file no longer serves: the sweep leaves holes out) read at 64 MiB/s, a cgroup's
        // cap, so the sweep takes 6 s however fast the disk (uncapped, a busy machine could hold the calling thread
        // until the others were done). 12 chunks of 32 MiB on 8 threads (the default for the 2 cores the tool is told
        // it has): the first report, after the calling thread's first chunk, comes with 4 chunks still to read, 2 s
        // before the end. That first, unfinished report is the one that used to throw (elapsed - TimeSpan.MinValue)
        // and silence progress for good.
        using TestFile file = TestFile.Create(384 * TestFile.MiB);
        using IoThrottleCgroup group = IoThrottleCgroup.Create(64 * TestFile.MiB);
        CliRun run = CliProcess.RunShell(
            $"echo $$ > '{group.ProcsFile}' && exec $TOOL touch '{file.Path}' --gate always",
            new Dictionary<string, string?> { ["DOTNET_PROCESSOR_COUNT"] = "2" },
            TimeSpan.FromSeconds(120));

        // Exit 0; or 1 where the one complaint is that the kernel reclaimed some of the file after it came in (a busy
        // machine short of memory, seen once in 20 runs: the pages wait up to 4 s for the end of the capped sweep), which
        // the tool rightly says and which leaves the progress lines as they were.
        string[] complaints = [.. run.Err.Split('\n').Where(l => l.Length > 0 && !l.StartsWith("progress: ", StringComparison.Ordinal))];
        bool reclaimedOnly = complaints.Length == 1 && complaints[0].StartsWith("sharpi-prefault: touch: only ", StringComparison.Ordinal)
            && complaints[0].Contains("stayed resident after the run: the kernel reclaimed the rest", StringComparison.Ordinal);
        Assert.True(run.ExitCode == 0 || (run.ExitCode == 1 && reclaimedOnly), $"exit {run.ExitCode}: {run.Err}");
        string[] lines = [.. run.Err.Split('\n').Where(l => l.StartsWith("progress: ", StringComparison.Ordinal))];
        Assert.True(lines.Length >= 2, run.Err);
        Assert.DoesNotContain("100.0%", lines[0]);
        Assert.Matches(new Regex(@"^progress: +100\.0% 384\.00 MiB/384\.00 MiB [0-9.]+ GiB/s ETA done (sharpi-prefault-test-|\.\.\.).*\.bin$"), lines[^1]);
        Assert.DoesNotContain("warning", run.Err);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.ScriptCommand))] // util-linux's script(1) is the pseudo-terminal; without it there is no terminal to measure
    public void Touch_OnA60ColumnTerminal_KeepsTheBarOnOneLine()
    {
        using TestFile file = TestFile.Create(64 * TestFile.MiB);

        // script(1) gives the tool a pseudo-terminal; stty makes it 60 columns wide.
        CliRun run = CliProcess.RunShell($"script -qec 'stty cols 60 rows 20; $TOOL touch --gate always {file.Path}' /dev/null");

        Assert.Equal(0, run.ExitCode);
        string[] redraws = run.Out.Split(['\r', '\n'], StringSplitOptions.RemoveEmptyEntries);
        string[] bars = [.. redraws.Where(r => r.Contains("GiB/s ETA", StringComparison.Ordinal))];
        Assert.NotEmpty(bars);
        Assert.All(bars, bar => Assert.True(bar.TrimEnd().Length < 60, $"{bar.Length} columns: '{bar}'"));
        // The bar, and the file's name (shortened from the left to fit).
        Assert.Contains(bars, bar => bar.StartsWith('[') && bar.TrimEnd().EndsWith(".bin", StringComparison.Ordinal));
        Assert.Contains("touched 1 file(s)", run.Out);
    }

    [Fact]
    public void ProgressLine_NamesTheFileInProgress()
    {
        var bar = new Sharpi.Prefault.Cli.Output.ProgressBar(TextWriter.Null, terminal: true, [("a/first.gguf", 100), ("b/second.gguf", 100)]);

        string line = bar.Format(new PrefaultProgress(150, 200, "x"), TimeSpan.FromSeconds(1), 79);

        Assert.True(line.Length <= 79, line);
        Assert.Contains("second.gguf (2/2)", line);
        Assert.Contains("ETA", line);
    }
}
