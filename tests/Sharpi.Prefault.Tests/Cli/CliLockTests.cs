using Sharpi.Prefault.Cli;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Cli;

public sealed class CliLockTests
{
    [LinuxFact]
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

        if (!held)
        {
            // RLIMIT_MEMLOCK too small here: the tool must say which limit refused it.
            Assert.Equal(1, exitCode);
            Assert.Contains("limit", error.ToString(), StringComparison.OrdinalIgnoreCase);
            return;
        }

        Assert.Equal(0, exitCode);
        Assert.True(lockedWhileHeld - lockedBefore >= TestFile.MiB, $"VmLck grew by {lockedWhileHeld - lockedBefore} bytes");
        Assert.Contains("unlocked", output.ToString());
        Assert.Equal(100, Residency.OfFile(file.Path).Percent);
    }

    private static async Task WaitForAsync(Func<bool> condition)
    {
        for (int i = 0; i < 300 && !condition(); i++)
        {
            await Task.Delay(50);
        }
    }
}
