namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// A hardened container's seccomp profile refuses process_vm_readv (and an older kernel has no MADV_POPULATE_READ), so
/// the sweep cannot read through the kernel. A file that shrinks before or while the touch runs must still never
/// kill the process: each case runs in a child process under a real seccomp filter, and a load past the file's end
/// (SIGBUS) ends the child before it prints <c>done</c>.
/// </summary>
public sealed class SeccompTouchTests(ITestOutputHelper output)
{
    private const long FileBytes = 8 * TestFile.MiB;

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Seccomp))]
    [InlineData(PrefaultStrategy.Touch)]
    [InlineData(PrefaultStrategy.Auto)] // MADV_POPULATE_READ refused too: Auto falls back to the touch
    public void Run_WithoutProcessVmReadv_WhileTheFileIsTruncated_NeverFaultsFatally(PrefaultStrategy strategy)
    {
        CliRun run = RunChild("during", strategy, iterations: 40, maskProcMaps: false);

        Assert.Equal("Touch", ChildProcess.Value(run, "method"));
        Assert.Equal("40", ChildProcess.Value(run, "truncatedWhileRunning")); // the case is real: each run saw its file shrink mid-sweep
        Assert.Equal("40", ChildProcess.Value(run, "runsWithFailures")); // and each reported the pages past the new end
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Seccomp))]
    [InlineData(PrefaultStrategy.Touch)]
    [InlineData(PrefaultStrategy.Auto)]
    public void Run_WithoutProcessVmReadv_OnADeletedFileThatShrank_TouchesNothingOfIt_AndSaysWhy(PrefaultStrategy strategy)
    {
        CliRun run = RunChild("deleted", strategy, iterations: 1, maskProcMaps: false);

        Assert.Equal("Touch", ChildProcess.Value(run, "method"));
        Assert.Equal("0", ChildProcess.Value(run, "bytes")); // no path gives its length: nothing of it is read
        Assert.Contains("cannot be opened again as the mapped file", ChildProcess.Value(run, "failure"), StringComparison.Ordinal);
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.SeccompMaskingProcMaps))]
    [InlineData(PrefaultStrategy.Touch)]
    [InlineData(PrefaultStrategy.Auto)]
    public void Run_WithoutProcessVmReadvOrProcMaps_OnAFileTruncatedBefore_NeverFaultsFatally(PrefaultStrategy strategy)
    {
        CliRun run = RunChild("before", strategy, iterations: 10, maskProcMaps: true);

        Assert.Equal("0", ChildProcess.Value(run, "maps")); // the case is real: /proc/self/maps reads empty
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Seccomp))]
    [InlineData("unmapped")] // an engine frees its own buffer (munmap) while the touch of it runs
    [InlineData("vvar")] // the kernel's [vvar] pages: readable in /proc/self/maps, SIGBUS on a load
    public void Run_WithoutProcessVmReadv_OnAnonymousMemoryThatCannotBeLoaded_NeverFaultsFatally(string what)
    {
        CliRun run = ChildProcess.Run([ChildCases.TouchAnonymousUnderSeccomp, what, "20"], timeout: TimeSpan.FromSeconds(120));

        output.WriteLine($"exit {run.ExitCode}\n{run.Out}\n{run.Err}");
        Assert.Equal("False", ChildProcess.Value(run, "kernelChecked")); // the case is real: process_vm_readv refused
        Assert.True(run.ExitCode == 0 && run.Out.Contains("done", StringComparison.Ordinal),
            $"the child died (exit {run.ExitCode}: 134 is SIGABRT after a fatal AccessViolation)");
        Assert.Equal("Touch", ChildProcess.Value(run, "method"));
        if (what == "vvar")
        {
            Assert.NotEqual("0", ChildProcess.Value(run, "vvarMappings")); // the case is real: [vvar] is mapped here
            Assert.Equal("1", ChildProcess.Value(run, "runsWithFailures")); // and its pages are reported, not read
        }
        else
        {
            Assert.Equal("20", ChildProcess.Value(run, "unmappedWhileRunning")); // each run lost its memory mid-sweep
            Assert.Equal("20", ChildProcess.Value(run, "runsWithFailures")); // and reported the pages it could not read
        }
    }

    private CliRun RunChild(string when, PrefaultStrategy strategy, int iterations, bool maskProcMaps)
    {
        using TestFile file = TestFile.Create(FileBytes);
        CliRun run = ChildProcess.Run([ChildCases.TouchUnderSeccomp, file.Path, when, strategy.ToString(), iterations.ToString(System.Globalization.CultureInfo.InvariantCulture),
            maskProcMaps ? "mask-maps" : "maps"], timeout: TimeSpan.FromSeconds(120), ownMountNamespace: maskProcMaps);

        output.WriteLine($"exit {run.ExitCode}\n{run.Out}\n{run.Err}");
        Assert.Equal("False", ChildProcess.Value(run, "kernelChecked")); // the case is real: process_vm_readv refused
        Assert.Equal("False", ChildProcess.Value(run, "populate"));
        Assert.True(run.ExitCode == 0 && run.Out.Contains("done", StringComparison.Ordinal),
            $"the child died (exit {run.ExitCode}: 134 is SIGABRT after a fatal AccessViolation, 135 SIGBUS)");
        return run;
    }
}
