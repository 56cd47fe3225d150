namespace Sharpi.Prefault.Tests.DirectIO;

/// <summary>
/// A process that cannot start one more thread (its pids cgroup at pids.max), in a child process inside a real pids
/// cgroup: Read and ReadAsync threw OutOfMemoryException, undocumented; now they read on the calling thread.
/// </summary>
public sealed class DirectFileReaderNoThreadsTests(ITestOutputHelper output)
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.PidsCgroup))]
    public void ReadAndReadAsync_WithNoThreadLeftToStart_ReadOnTheCallingThread_InsteadOfThrowing()
    {
        CliRun run = NoThreadsLeft.Run("read", output);

        Assert.Equal(NoThreadsLeft.OneMiB, ChildProcess.Value(run, "readBytes"));
        Assert.Equal("True", ChildProcess.Value(run, "readMatches"));
        Assert.Equal(NoThreadsLeft.OneMiB, ChildProcess.Value(run, "readAsyncBytes"));
        Assert.Equal("True", ChildProcess.Value(run, "readAsyncMatches"));
    }
}
