using Sharpi.Prefault.Tests.TestSupport;
using Xunit.Abstractions;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// A process that cannot start one more thread (its pids cgroup at pids.max), in a child process inside a real pids
/// cgroup. A prefault must never fail a load: Start threw OutOfMemoryException there; now it runs on the caller's thread.
/// </summary>
public sealed class NoThreadsLeftTests(ITestOutputHelper output)
{
    [PidsCgroupFact]
    public void Start_WithNoThreadLeftToStart_PrefaultsOnTheCallingThread_InsteadOfThrowing()
    {
        CliRun run = NoThreadsLeft.Run("start", output);

        Assert.Equal("True", ChildProcess.Value(run, "startRan"));
        Assert.Equal(NoThreadsLeft.OneMiB, ChildProcess.Value(run, "startBytes"));
    }
}
