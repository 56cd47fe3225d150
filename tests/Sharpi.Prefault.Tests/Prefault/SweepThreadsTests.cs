namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>How Run and Start size and rank their threads (<see cref="SweepThreads"/>): the decision alone, no sweep.</summary>
public sealed class SweepThreadsTests
{
    [Fact]
    public void ForRun_SweepsOnAsManyThreadsAsAsked_AtNormal_ReadingNothingAhead()
    {
        SweepThreads run = SweepThreads.ForRun(new PrefaultOptions { MaxDegreeOfParallelism = 12 });

        Assert.Equal(new SweepThreads(12, ThreadPriority.Normal), run);
        Assert.False(run.ReadsAheadOfSweep);
        Assert.True(run.TouchesAfterPopulate); // the caller waits: the touch's faults are better paid here than by its request
        Assert.False(run.KeepsHugePageAdvice);
    }

    [Fact]
    public void ForStart_ReadsAheadBelowNormal_WithHelpersBelowNormalToo_NoMoreThanCores()
    {
        SweepThreads start = SweepThreads.ForStart(new PrefaultOptions { MaxDegreeOfParallelism = 64 });

        Assert.Equal(Math.Min(63, Environment.ProcessorCount), start.Helpers); // was 64 threads at nice 10
        Assert.Equal(64, start.Threads); // where it does not read ahead (2 MiB folios, a touch): as before
        Assert.Equal(ThreadPriority.BelowNormal, start.Priority);
        Assert.Equal(ThreadPriority.BelowNormal, start.HelperPriority); // not Lowest: a nice-19 helper mid-chunk held Dispose for seconds beside busy cores
        Assert.Equal(SweepThreads.StartReadAheadBytes, start.ReadAheadBytes);
        Assert.False(start.TouchesAfterPopulate); // beside the init: the touch's reads are CPU the init loses
        Assert.True(start.KeepsHugePageAdvice); // 4 KiB folios cost the init the kernel's work for each
    }

    [Theory]
    [InlineData(1, 0)]
    [InlineData(2, 1)]
    public void ForStart_CountsTheBackgroundThreadInTheParallelismAsked(int asked, int helpers)
    {
        Assert.Equal(Math.Min(helpers, Environment.ProcessorCount), SweepThreads.ForStart(new PrefaultOptions { MaxDegreeOfParallelism = asked }).Helpers);
    }

    [Fact]
    public void ForStart_WithAPriorityAsked_RunsEveryThreadAtIt()
    {
        SweepThreads start = SweepThreads.ForStart(new PrefaultOptions { WorkerPriority = ThreadPriority.Normal });

        Assert.Equal(ThreadPriority.Normal, start.Priority);
        Assert.Equal(ThreadPriority.Normal, start.HelperPriority);
    }
}
