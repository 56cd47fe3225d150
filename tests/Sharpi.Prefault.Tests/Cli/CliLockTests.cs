using Sharpi.Prefault.Cli;
using Sharpi.Prefault.Tests.Locking;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Cli;

public sealed class CliLockTests
{
    [LockableFact(TestFile.MiB)]
    public async Task Lock_HoldsThePagesUntilCancelled_ThenUnlocksAndExitsWithZero()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using var output = new StringWriter();
        using var error = new StringWriter();
        TextWriter syncOut = TextWriter.Synchronized(output);
        using var cancel = new CancellationTokenSource();
        long lockedBefore = ProcessStatus.ReadStatusBytes("VmLck");

        Task<int> run = CliApp.RunAsync(["lock", file.Path], syncOut, TextWriter.Synchronized(error), cancel.Token);
        await WaitForAsync(() => output.ToString().Contains("holding", StringComparison.Ordinal) || run.IsCompleted);
        bool held = !run.IsCompleted;
        long lockedWhileHeld = ProcessStatus.ReadStatusBytes("VmLck");
        await cancel.CancelAsync();
        int exitCode = await run;

        Assert.True(held, $"exit {exitCode} before holding: {error}");
        Assert.Equal(0, exitCode);
        Assert.True(lockedWhileHeld - lockedBefore >= TestFile.MiB, $"VmLck grew by {lockedWhileHeld - lockedBefore} bytes");
        Assert.Contains("unlocked", output.ToString());
        Assert.Equal(100, Residency.OfFile(file.Path).Percent);
    }

    /// <summary>
    /// The refused path, made to happen here rather than left to the machine's limit: a 64 KiB soft RLIMIT_MEMLOCK, and
    /// as root the tool runs without CAP_IPC_LOCK (setpriv drops it from the bounding and inheritable sets), which
    /// would bypass the limit.
    /// </summary>
    [CommandFact("setpriv")]
    public void Lock_PastRlimitMemlock_ExitsWithOne_AndSaysWhichLimitAndHowToRaiseIt()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        string withoutIpcLock = Environment.IsPrivilegedProcess ? "setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock " : "";

        CliRun run = CliProcess.RunShell($"ulimit -S -l 64 && exec {withoutIpcLock}$TOOL lock '{file.Path}'", timeout: TimeSpan.FromSeconds(30));

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("RLIMIT_MEMLOCK is soft 65536 bytes", run.Err, StringComparison.Ordinal);
        Assert.Contains("ulimit -l", run.Err, StringComparison.Ordinal);
        Assert.Contains("nothing locked", run.Err, StringComparison.Ordinal);
        Assert.DoesNotContain("holding", run.Out + run.Err, StringComparison.Ordinal);
    }

    private static async Task WaitForAsync(Func<bool> condition)
    {
        for (int i = 0; i < 300 && !condition(); i++)
        {
            await Task.Delay(50);
        }
    }
}
