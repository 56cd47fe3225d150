using System.Diagnostics;
using System.Globalization;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// <c>lock --pidfile</c> writes only a file it created, exclusively, and removes only that file: never a device, someone
/// else's file, or the pid file of another lock. Each case runs the tool as a child process, with a timeout that kills it
/// (a lock that was not refused would hold forever).
/// </summary>
public sealed class CliPidFileTests : IDisposable
{
    private const long FileBytes = 64 * 1024;

    private readonly string _directory = Directory.CreateTempSubdirectory("sharpi-pidfile-").FullName;
    private readonly TestFile _file = TestFile.Create(FileBytes);

    [ConditionalFact(typeof(Requirements), nameof(Requirements.LinuxRoot))]
    public void Lock_WithADeviceAsThePidFile_RefusesAndLeavesTheDevice()
    {
        // A node of /dev/full's numbers (1, 7), in a scratch directory: the old tool, failing to write it (ENOSPC),
        // deleted it on the way out, as it deleted /dev/full itself.
        string device = Path.Combine(_directory, "full");
        Run("mknod", device, "c", "1", "7");

        CliRun run = CliProcess.Run(["lock", _file.Path, "--pidfile", device], timeout: TimeSpan.FromSeconds(30));

        Assert.Equal("character special file", Output("stat", "-c", "%F", device));
        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("is a device, not a pid file", run.Err);
        Assert.DoesNotContain("holding", run.Out + run.Err);
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.LinuxRoot))]
    [InlineData("precious: not a pid\n")]
    [InlineData("dead-pid")]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void Lock_AsAnotherUser_WithSomeoneElsesReadOnlyFileAsThePidFile_LeavesIt(string content)
    {
        // The directory is nobody's (so nobody could delete what is in it), the file root's and read-only: the old
        // tool, run as nobody, could not write it and deleted it.
        string text = content == "dead-pid" ? DeadPid().ToString(CultureInfo.InvariantCulture) + "\n" : content;
        string pidFile = Path.Combine(_directory, "someone-elses.pid");
        File.WriteAllText(pidFile, text);
        File.SetUnixFileMode(pidFile, UnixFileMode.UserRead | UnixFileMode.GroupRead | UnixFileMode.OtherRead);
        Run("chown", "65534:65534", _directory);

        CliRun run = CliProcess.RunShell(
            $"exec setpriv --reuid=65534 --regid=65534 --clear-groups $TOOL lock '{_file.Path}' --pidfile '{pidFile}'",
            timeout: TimeSpan.FromSeconds(30));

        Assert.True(File.Exists(pidFile), "someone else's file was deleted");
        Assert.Equal(text, File.ReadAllText(pidFile));
        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("cannot be this lock's pid file", run.Err);
        Assert.DoesNotContain("holding", run.Out + run.Err);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Lock_WithAFileOfOtherContentAsThePidFile_RefusesAndLeavesIt()
    {
        string pidFile = Path.Combine(_directory, "notes.txt");
        File.WriteAllText(pidFile, "not a pid file\n");

        CliRun run = CliProcess.Run(["lock", _file.Path, "--pidfile", pidFile], timeout: TimeSpan.FromSeconds(30));

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("does not hold a process id", run.Err);
        Assert.Equal("not a pid file\n", File.ReadAllText(pidFile));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable64KiB))]
    public void SecondLock_WithTheSamePidFile_IsRefusedBeforeLocking_AndTheFirstStillOwnsIt()
    {
        string pidFile = Path.Combine(_directory, "lock.pid");
        using CliProcess first = CliProcess.Start(["lock", _file.Path, "--pidfile", pidFile]);
        Assert.True(first.WaitFor("holding", TimeSpan.FromSeconds(20)), first.Err);
        string firstPid = first.Id.ToString(CultureInfo.InvariantCulture);

        // The old tool overwrote the file and held its own lock: this run would not end (the timeout kills it).
        CliRun second = CliProcess.Run(["lock", _file.Path, "--pidfile", pidFile], timeout: TimeSpan.FromSeconds(30));

        NoStackTrace.In(second);
        Assert.Equal(1, second.ExitCode);
        Assert.Contains($"held by process {firstPid}, which is running", second.Err);
        Assert.DoesNotContain("locked", second.Out + second.Err);
        Assert.Equal(firstPid, File.ReadAllText(pidFile).Trim());

        first.Signal("TERM");
        CliRun firstRun = first.Wait(TimeSpan.FromSeconds(20));
        Assert.Equal(0, firstRun.ExitCode);
        Assert.False(File.Exists(pidFile), "the first lock did not remove its own pid file");
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable64KiB))]
    public void Lock_RemovesOnExitOnlyThePidFileItWrote()
    {
        string pidFile = Path.Combine(_directory, "lock.pid");
        using CliProcess tool = CliProcess.Start(["lock", _file.Path, "--pidfile", pidFile]);
        Assert.True(tool.WaitFor("holding", TimeSpan.FromSeconds(20)), tool.Err);

        // Another process's pid file now stands at the path (a new file, another id): it is not this lock's to remove.
        string replacement = Path.Combine(_directory, "other.pid");
        File.WriteAllText(replacement, "1\n");
        File.Move(replacement, pidFile, overwrite: true);
        tool.Signal("TERM");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(20));

        Assert.Equal(0, run.ExitCode);
        Assert.True(File.Exists(pidFile), "the lock removed a pid file it did not write");
        Assert.Equal("1\n", File.ReadAllText(pidFile));
        Assert.Contains("not removed", run.Err);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable64KiB))]
    public void Lock_TakesOverAStalePidFile()
    {
        string pidFile = Path.Combine(_directory, "lock.pid");
        File.WriteAllText(pidFile, DeadPid().ToString(CultureInfo.InvariantCulture) + "\n");

        using CliProcess tool = CliProcess.Start(["lock", _file.Path, "--pidfile", pidFile]);
        Assert.True(tool.WaitFor("holding", TimeSpan.FromSeconds(20)), tool.Err);

        Assert.Equal(tool.Id.ToString(CultureInfo.InvariantCulture), File.ReadAllText(pidFile).Trim());
        Assert.Single(Directory.GetFiles(_directory)); // the stale file moved aside was deleted
        tool.Signal("TERM");
        Assert.Equal(0, tool.Wait(TimeSpan.FromSeconds(20)).ExitCode);
        Assert.False(File.Exists(pidFile));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable64KiB))]
    public void Lock_WithAPidFileNamingARunningProcessWithoutItsLock_RefusesAndLeavesIt()
    {
        // An older sharpi-prefault's pid file (the id alone, no lock, no namespace recorded) while that lock still runs:
        // the test host stands for it. The old code saw a free lock, took the file for stale and replaced it.
        string pidFile = Path.Combine(_directory, "lock.pid");
        string running = Environment.ProcessId.ToString(CultureInfo.InvariantCulture) + "\n";
        File.WriteAllText(pidFile, running);

        CliRun run = CliProcess.Run(["lock", _file.Path, "--pidfile", pidFile], timeout: TimeSpan.FromSeconds(30));

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"holds the id of process {Environment.ProcessId}, which is running, but not the file's lock", run.Err);
        Assert.DoesNotContain("holding", run.Out + run.Err);
        Assert.Equal(running, File.ReadAllText(pidFile));
        Assert.Single(Directory.GetFiles(_directory));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable64KiB))]
    public void Lock_WithAPidFileNameThatIsNotUtf8_RefusesAndLeavesTheFileItsTextNames()
    {
        // p\377.pid reaches .NET as p\uFFFD.pid, the valid name of a stale pid file beside it: the old code took that file
        // over, and removed it on exit.
        string other = Path.Combine(_directory, "p\uFFFD.pid");
        string stale = DeadPid().ToString(CultureInfo.InvariantCulture) + "\n";
        File.WriteAllText(other, stale);

        CliRun run = CliProcess.RunShell(
            $"exec $TOOL lock '{_file.Path}' --pidfile \"$(printf '{_directory}/p\\377.pid')\"", timeout: TimeSpan.FromSeconds(30));

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("its name is not valid UTF-8", run.Err);
        Assert.DoesNotContain("holding", run.Out + run.Err);
        Assert.Equal(stale, File.ReadAllText(other));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable64KiB), nameof(Requirements.PidNamespace))]
    public void SecondLock_InAnotherPidNamespace_IsRefused_AndTheFirstStillOwnsItsPidFile()
    {
        string pidFile = Path.Combine(_directory, "lock.pid");
        using CliProcess first = CliProcess.Start(["lock", _file.Path, "--pidfile", pidFile]);
        Assert.True(first.WaitFor("holding", TimeSpan.FromSeconds(20)), first.Err);
        string firstPid = first.Id.ToString(CultureInfo.InvariantCulture);

        // The second cannot see the first's id. The old tool took the file for stale, wrote its own namespace-local id,
        // held its lock until the timeout killed it, and deleted the file on its way out.
        CliRun second = CliProcess.RunShell(
            $"exec unshare -p -f --kill-child --mount-proc $TOOL lock '{_file.Path}' --pidfile '{pidFile}'",
            timeout: TimeSpan.FromSeconds(30));

        NoStackTrace.In(second);
        Assert.Equal(1, second.ExitCode);
        Assert.Contains($"held by process {firstPid} of another pid namespace", second.Err);
        Assert.DoesNotContain("holding", second.Out + second.Err);
        Assert.True(File.Exists(pidFile), "the second lock deleted the first's pid file");
        Assert.Equal(firstPid, File.ReadAllText(pidFile).Trim());

        first.Signal("TERM");
        CliRun firstRun = first.Wait(TimeSpan.FromSeconds(20));
        Assert.Equal(0, firstRun.ExitCode);
        Assert.DoesNotContain("not removed", firstRun.Err);
        Assert.False(File.Exists(pidFile), "the first lock did not remove its own pid file");
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable64KiB))]
    public void Lock_TakesOverThePidFileOfALockKilledWithSigkill()
    {
        string pidFile = Path.Combine(_directory, "lock.pid");
        using (CliProcess killed = CliProcess.Start(["lock", _file.Path, "--pidfile", pidFile]))
        {
            Assert.True(killed.WaitFor("holding", TimeSpan.FromSeconds(20)), killed.Err);
            killed.Signal("KILL");
            killed.Wait(TimeSpan.FromSeconds(20));
        }

        Assert.True(File.Exists(pidFile), "SIGKILL leaves the pid file behind");
        using CliProcess tool = CliProcess.Start(["lock", _file.Path, "--pidfile", pidFile]);
        Assert.True(tool.WaitFor("holding", TimeSpan.FromSeconds(20)), tool.Err);

        Assert.Equal(tool.Id.ToString(CultureInfo.InvariantCulture), File.ReadAllText(pidFile).Trim());
        Assert.Single(Directory.GetFiles(_directory)); // the file written aside was renamed into place
        tool.Signal("TERM");
        Assert.Equal(0, tool.Wait(TimeSpan.FromSeconds(20)).ExitCode);
        Assert.False(File.Exists(pidFile));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Lock_WithAFifoAsThePidFile_RefusesWithoutBlocking()
    {
        string pidFile = Path.Combine(_directory, "lock.pid");
        Run("mkfifo", pidFile);

        CliRun run = CliProcess.Run(["lock", _file.Path, "--pidfile", pidFile], timeout: TimeSpan.FromSeconds(30));

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("is a FIFO, not a pid file", run.Err);
        Assert.Equal("fifo", Output("stat", "-c", "%F", pidFile));
    }

    public void Dispose()
    {
        _file.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    /// <summary>The id of a process that has exited (ids are handed out in turn, so it is not reused within a test).</summary>
    private static int DeadPid()
    {
        using Process process = Process.Start("true")!;
        process.WaitForExit();
        return process.Id;
    }

    private static string Output(string program, params string[] args)
    {
        var start = new ProcessStartInfo(program, args) { RedirectStandardOutput = true, RedirectStandardError = true };
        using Process process = Process.Start(start)!;
        string output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        return output.Trim();
    }

    private static void Run(string program, params string[] args)
    {
        using Process process = Process.Start(program, args);
        process.WaitForExit();
        Assert.Equal(0, process.ExitCode);
    }
}
