using Microsoft.Extensions.Logging.Abstractions;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// The sweep's progress goes to the caller at most ten times a second, and always the first and the final figure:
/// counted against a clock the test moves (as Polly tests its TimeProvider-driven logic), never timed.
/// </summary>
public sealed class ProgressReporterTests
{
    private const long Total = 1000;

    [Fact]
    public void Report_WhileTheClockStandsStill_SendsTheFirstFigureAndTheFinalOne()
    {
        var clock = new ManualClock();
        var reports = new List<long>();
        ProgressReporter reporter = Reporter(clock, reports);

        for (long done = 1; done <= Total; done++)
        {
            reporter.Report(done);
        }

        Assert.Equal([1, Total], reports);
    }

    [Fact]
    public void Report_WithAHundredthOfASecondBetweenFigures_SendsEveryTenth_AndTheFinalOne()
    {
        var clock = new ManualClock();
        var reports = new List<long>();
        ProgressReporter reporter = Reporter(clock, reports);

        for (long done = 1; done <= Total; done++)
        {
            clock.Advance(ManualClock.TicksPerSecond / 100);
            reporter.Report(done);
        }

        // 1, then one each time a tenth of a second has passed (11, 21, ... 991), then the total.
        long[] expected = [.. Enumerable.Range(0, 100).Select(i => (10L * i) + 1), Total];
        Assert.Equal(expected, reports);
    }

    [Fact]
    public void Complete_TooSoonAfterTheLastReport_StillSendsTheLastFigure()
    {
        var clock = new ManualClock();
        var reports = new List<long>();
        ProgressReporter reporter = Reporter(clock, reports);

        reporter.Report(100);
        reporter.Report(200);
        reporter.Complete(300); // a cancelled sweep: short of the total, and within the same tenth of a second

        Assert.Equal([100, 300], reports);
    }

    [Fact]
    public void Report_WhenTheCallbackAndThenTheLoggerThrow_ThrowsNothing_AndDropsTheCallback()
    {
        var clock = new ManualClock();
        int calls = 0;
        var reporter = new ProgressReporter(new CallbackProgress(_ =>
        {
            calls++;
            throw new InvalidOperationException("the progress bar failed");
        }), Total, "p", new ThrowingLogger(), clock);

        // The logger's throw, reporting the callback's, must not leave the reporter either: it would leave the sweep's
        // calling thread with its helpers still running.
        reporter.Report(1);
        clock.Advance(ManualClock.TicksPerSecond);
        reporter.Report(2);
        reporter.Complete(Total);

        Assert.Equal(1, calls);
    }

    /// <summary>A reporter over <see cref="Total"/> bytes that sends its figures to <paramref name="reports"/>, on <paramref name="clock"/>.</summary>
    private static ProgressReporter Reporter(ManualClock clock, List<long> reports)
        => new(new CallbackProgress(p => reports.Add(p.BytesDone)), Total, "p", NullLogger.Instance, clock);

    /// <summary>A clock that moves only when the test says (1,000 ticks a second).</summary>
    private sealed class ManualClock : TimeProvider
    {
        public const long TicksPerSecond = 1000;
        private long _now; // 0: the first report must go out on the rule, not because the clock is far from zero

        public override long TimestampFrequency => TicksPerSecond;

        public override long GetTimestamp() => _now;

        public void Advance(long ticks) => _now += ticks;
    }
}
