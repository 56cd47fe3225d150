namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// A seccomp profile that refuses memfd_create leaves the touch after a populate to process_vm_readv: the mechanism
/// says so (its description and a Debug line) and the touch still reads every page. Runs in a child process under a
/// real filter, which stays for the process's life.
/// </summary>
public sealed class SeccompMappingTouchTests(ITestOutputHelper output)
{
    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Seccomp))] // one case, under the attribute that already skips where no filter can be installed
    [InlineData(4)]
    public void Choose_WithoutMemfdCreate_FallsBackToProcessVmReadv_AndSaysSo(int mebibytes)
    {
        using TestFile file = TestFile.Create(mebibytes * TestFile.MiB);
        CliRun run = ChildProcess.Run([ChildCases.TouchWithoutMemfd, file.Path], timeout: TimeSpan.FromSeconds(120));

        output.WriteLine($"exit {run.ExitCode}\n{run.Out}\n{run.Err}");
        Assert.True(run.ExitCode == 0 && run.Out.Contains("done", StringComparison.Ordinal), $"the child failed (exit {run.ExitCode})");
        Assert.Equal("False", ChildProcess.Value(run, "mappingTouch")); // the case is real: memfd_create refused
        Assert.Contains("memfd_create", ChildProcess.Value(run, "refusal"), StringComparison.Ordinal);
        Assert.Equal("True", ChildProcess.Value(run, "touchesAfterPopulate"));
        Assert.Equal("False", ChildProcess.Value(run, "throughMapping"));
        Assert.Contains("through the kernel (process_vm_readv)", ChildProcess.Value(run, "description"), StringComparison.Ordinal);
        Assert.Contains("memfd_create", ChildProcess.Value(run, "description"), StringComparison.Ordinal);
        Assert.Equal("True", ChildProcess.Value(run, "loggedFallback"));
        Assert.Equal((mebibytes * TestFile.MiB).ToString(System.Globalization.CultureInfo.InvariantCulture), ChildProcess.Value(run, "swept"));
        Assert.NotEqual("0", ChildProcess.Value(run, "spansTouched"));
    }
}
