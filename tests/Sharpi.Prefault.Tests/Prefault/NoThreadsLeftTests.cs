namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// A process that cannot start one more thread (its pids cgroup at pids.max), in a child process inside a real pids
/// cgroup. A prefault must never fail a load: Start threw OutOfMemoryException there; now it runs on the caller's thread.
/// </summary>
public sealed class NoThreadsLeftTests(ITestOutputHelper output)
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.PidsCgroup))]
    public void Start_WithNoThreadLeftToStart_PrefaultsOnTheCallingThread_InsteadOfThrowing()
    {
        CliRun run = NoThreadsLeft.Run("start", output);

        Assert.Equal("True", ChildProcess.Value(run, "startRan"));
        Assert.Equal(NoThreadsLeft.OneMiB, ChildProcess.Value(run, "startBytes"));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.PidsCgroup))]
    public void WarmAsync_WithNoThreadLeftToStart_CompletesWithTheReason_InsteadOfThrowing()
    {
        CliRun run = NoThreadsLeft.Run("warm", output);

        Assert.Equal("True", ChildProcess.Value(run, "warmCompleted"));
        Assert.Equal("0", ChildProcess.Value(run, "warmBytes"));
        Assert.Contains("thread", ChildProcess.Value(run, "warmError"), StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.PidsCgroup))]
    public void WarmAsync_WithRoomForOneOfItsThreads_ReadsTheWholeFileOnIt_AndCompletes()
    {
        CliRun run = NoThreadsLeft.Run("warm-one", output, 32 * TestFile.MiB); // four chunks: four threads wanted

        Assert.Equal("True", ChildProcess.Value(run, "warmCompleted"));
        Assert.Equal((32 * TestFile.MiB).ToString(System.Globalization.CultureInfo.InvariantCulture), ChildProcess.Value(run, "warmBytes"));
        Assert.Equal(string.Empty, ChildProcess.Value(run, "warmError"));
    }
}
