using Sharpi.Prefault.Tests.Cli;
using Sharpi.Prefault.Tests.TestSupport;
using Xunit.Abstractions;

namespace Sharpi.Prefault.Tests.DirectIO;

/// <summary>
/// A process that cannot start one more thread (its pids cgroup at pids.max), in a child process inside a real pids
/// cgroup: Read and ReadAsync threw OutOfMemoryException, undocumented; now they read on the calling thread.
/// </summary>
public sealed class DirectFileReaderNoThreadsTests(ITestOutputHelper output)
{
    [PidsCgroupFact]
    public void ReadAndReadAsync_WithNoThreadLeftToStart_ReadOnTheCallingThread_InsteadOfThrowing()
    {
        using PidsCgroup group = PidsCgroup.Create();
        using TestFile file = TestFile.Create(TestFile.MiB);

        CliRun run = ChildProcess.Run([ChildCases.NoThreadsLeft, group.Path, file.Path, "read"], group.ProcsFile, TimeSpan.FromSeconds(60));

        output.WriteLine($"exit {run.ExitCode}\n{run.Out}\n{run.Err}");
        Assert.Equal("True", ChildProcess.Value(run, "threadStartRefused")); // the case is real: no thread could start
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(TestFile.MiB.ToString(System.Globalization.CultureInfo.InvariantCulture), ChildProcess.Value(run, "readBytes"));
        Assert.Equal("True", ChildProcess.Value(run, "readMatches"));
        Assert.Equal(TestFile.MiB.ToString(System.Globalization.CultureInfo.InvariantCulture), ChildProcess.Value(run, "readAsyncBytes"));
        Assert.Equal("True", ChildProcess.Value(run, "readAsyncMatches"));
    }
}
