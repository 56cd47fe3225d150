using System.Text.RegularExpressions;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Cli;

public sealed class CliProgressTests
{
    [ReadThrottleFact]
    public void Touch_WithStderrRedirected_WritesPlainProgressLines()
    {
        // 512 MiB of real bytes (a sparse file no longer serves: the sweep leaves holes out), cold, read at 256 MiB/s at
        // most (2 s; unthrottled, a VM whose host still caches the file read it in one report): 16 chunks of 32 MiB on
        // 8 threads, so the first report, after the calling thread's first chunk, comes before the end. That first,
        // unfinished report is the one that used to throw (elapsed - TimeSpan.MinValue) and silence progress for good.
        using TestFile file = TestFile.Create(512 * TestFile.MiB);
        using var throttle = ReadThrottle.Create(file.Path, 256 * TestFile.MiB);
        CliRun run = CliProcess.RunShell($"echo $$ > {throttle.ProcsFile} && exec $TOOL touch {file.Path} --gate always", timeout: TimeSpan.FromSeconds(60));

        Assert.Equal(0, run.ExitCode);
        string[] lines = [.. run.Err.Split('\n').Where(l => l.StartsWith("progress: ", StringComparison.Ordinal))];
        Assert.True(lines.Length >= 2, run.Err);
        Assert.DoesNotContain("100.0%", lines[0]);
        Assert.Matches(new Regex(@"^progress: +100\.0% 512\.00 MiB/512\.00 MiB [0-9.]+ GiB/s ETA done sharpi-prefault-test-.*\.bin$"), lines[^1]);
        Assert.DoesNotContain("warning", run.Err);
    }

    [CommandFact("script")] // util-linux's script(1) is the pseudo-terminal; without it there is no terminal to measure
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
