using System.Text.RegularExpressions;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Cli;

public sealed class CliProgressTests
{
    [LinuxFact]
    public void Touch_WithStderrRedirected_WritesPlainProgressLines()
    {
        // 4 GiB of holes (no disk written): many 32 MiB chunks, so the first report comes before the end. That first,
        // unfinished report is the one that used to throw (elapsed - TimeSpan.MinValue) and silence progress for good.
        string path = Path.Combine(Path.GetTempPath(), $"sharpi-progress-{Guid.NewGuid():N}.bin");
        using (var stream = new FileStream(path, FileMode.CreateNew))
        {
            stream.SetLength(4L << 30);
        }

        try
        {
            CliRun run = CliRun.Of("touch", path, "--gate", "always");

            Assert.Equal(0, run.ExitCode);
            string[] lines = [.. run.Err.Split('\n').Where(l => l.StartsWith("progress: ", StringComparison.Ordinal))];
            Assert.True(lines.Length >= 2, run.Err);
            Assert.DoesNotContain("100.0%", lines[0]);
            Assert.Matches(new Regex(@"^progress: +100\.0% 4\.00 GiB/4\.00 GiB [0-9.]+ GiB/s ETA done sharpi-progress-.*\.bin$"), lines[^1]);
            Assert.DoesNotContain("warning", run.Err);
        }
        finally
        {
            File.Delete(path);
        }
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
