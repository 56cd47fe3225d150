using Sharpi.Prefault.Bench;

namespace Sharpi.Prefault.Bench.Tests.Reporting;

/// <summary>Redirected, the progress line is plain lines: one per step, within the output's 100 columns, no carriage return.</summary>
public sealed class ProgressLineTests
{
    [Fact]
    public void Begin_Redirected_WritesOnePlainLinePerStep()
    {
        var output = new StringWriter();
        using (var progress = new ProgressLine(output, live: false))
        {
            progress.Begin("[2/24] repetition 1/1, cold, limit-direct-2");
            progress.Begin("[2/24] repetition 1/1, cold, limit-direct-2: compacting memory, then waiting for free page reporting to settle");
            progress.Begin("[2/24] repetition 1/1, cold, limit-direct-2"); // the settle wait hands the step back: not repeated
            progress.Update("12% read");                                    // live redraws stay off a log
            progress.Begin("[3/24] repetition 1/1, cold, none");
        }

        string[] lines = output.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries);
        Assert.DoesNotContain('\r', output.ToString().Replace(Environment.NewLine, "\n", StringComparison.Ordinal));
        Assert.All(lines, static l => Assert.True(l.Length <= CommonOptions.Columns, l));
        Assert.Equal(4, lines.Length); // step, its settle line wrapped in two, the next step
        Assert.Matches(@"^\[0:0\d\] \[2/24\] repetition 1/1, cold, limit-direct-2$", lines[0]);
        Assert.StartsWith("  ", lines[2], StringComparison.Ordinal);
        Assert.EndsWith("[3/24] repetition 1/1, cold, none", lines[3], StringComparison.Ordinal);
    }
}
