using Sharpi.Prefault.Tests.Models;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// The tool under a FIFO swapped over its model file by renameat2(RENAME_EXCHANGE) in a tight loop: <c>keep</c>'s
/// thread sat in openat (a FIFO opened for reading waits for a writer), and SIGTERM left the process alive; only a
/// second signal ended it, with 143 and no last line. And an error names the call that failed.
/// </summary>
public sealed class CliFifoSwapTests : IDisposable
{
    private readonly TempModelDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Keep_WhileAFifoIsSwappedOverItsFile_EndsOnTheFirstSigterm_WithItsLastLine()
    {
        string model = _dir.Write("model.gguf", new GgufBuilder().UInt32("general.alignment", 64).F32("token_embd.weight", 1024, 64).F32("output.weight", 64).Build());
        using CliProcess tool = CliProcess.Start(["keep", model, "--interval", "10ms"]);
        Assert.True(tool.WaitFor(" look 1: ", TimeSpan.FromSeconds(30)), tool.Err);

        CliRun run;
        using (var swap = FifoSwap.Start(model))
        {
            // Many looks (each a stat and an open of the path) against many swaps, before the one signal.
            Assert.True(tool.WaitUntil(() => swap.Swaps >= 600_000, TimeSpan.FromSeconds(90)), $"swaps: {swap.Swaps}; {tool.Err}");
            tool.Signal("TERM");
            run = tool.Wait(TimeSpan.FromSeconds(20));
        }

        NoStackTrace.In(run);
        Assert.Equal(0, run.ExitCode);
        Assert.StartsWith("stopped after ", run.Out.TrimEnd('\n').Split('\n')[^1], StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.BtfFile))]
    public void Touch_OfAFileThatRefusesMmap_SaysMmap_NotPermissionDenied()
    {
        CliRun run = CliProcess.Run(["touch", "/sys/kernel/btf/vmlinux"]);

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("/sys/kernel/btf/vmlinux: mmap: errno ", run.Err, StringComparison.Ordinal);
        Assert.DoesNotContain(": permission denied.", run.Err, StringComparison.Ordinal);
    }
}
