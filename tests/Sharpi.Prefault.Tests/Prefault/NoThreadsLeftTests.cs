using Sharpi.Prefault.Tests.Cli;
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
        using PidsCgroup group = PidsCgroup.Create();
        using TestFile file = TestFile.Create(TestFile.MiB);

        CliRun run = ChildProcess.Run([ChildCases.NoThreadsLeft, group.Path, file.Path, "start"], group.ProcsFile, TimeSpan.FromSeconds(60));

        output.WriteLine($"exit {run.ExitCode}\n{run.Out}\n{run.Err}");
        Assert.Equal("True", ChildProcess.Value(run, "threadStartRefused")); // the case is real: no thread could start
        Assert.Equal(0, run.ExitCode);
        Assert.Equal("True", ChildProcess.Value(run, "startRan"));
        Assert.Equal(TestFile.MiB.ToString(System.Globalization.CultureInfo.InvariantCulture), ChildProcess.Value(run, "startBytes"));
    }
}
