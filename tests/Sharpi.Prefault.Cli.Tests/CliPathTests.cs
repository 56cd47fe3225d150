namespace Sharpi.Prefault.Tests.Cli;

/// <summary>Paths the kernel refuses for their length are named as such, not as missing files.</summary>
public sealed class CliPathTests
{
    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData("resident")]
    [InlineData("touch")]
    [InlineData("evict")]
    public void AnExistingPathLongerThanPathMax_IsNamedTooLong(string command)
    {
        // Twenty 250-byte directories, made one chdir at a time (no single call sees the whole path), then the tool is
        // given the whole absolute path of a file at the bottom: over 5,000 bytes, past PATH_MAX (4096).
        string root = Directory.CreateTempSubdirectory("sharpi-long-").FullName;
        string component = new('d', 250);
        try
        {
            CliRun run = CliProcess.RunShell(
                $"cd '{root}' && for i in $(seq 20); do mkdir {component} && cd {component} || exit 99; done; "
                + $"head -c 8192 /dev/zero > model.bin && $TOOL {command} \"$PWD/model.bin\"");

            NoStackTrace.In(run);
            Assert.Equal(1, run.ExitCode);
            Assert.Contains("path too long (ENAMETOOLONG)", run.Err);
            Assert.DoesNotContain("no such file", run.Err);
        }
        finally
        {
            // rm walks a tree deeper than PATH_MAX by descriptors; .NET's recursive delete would need the whole paths.
            using var rm = System.Diagnostics.Process.Start("rm", ["-rf", root]);
            rm.WaitForExit();
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void ADirectoryWhoseNameStartsWithADash_IsAPath_NotAnUnknownOption()
    {
        string root = Directory.CreateTempSubdirectory("sharpi-dash-").FullName;
        try
        {
            CliRun run = CliProcess.RunShell(
                $"cd '{root}' && mkdir -- -models && head -c 8192 /dev/zero > -models/w.bin && $TOOL resident -r -- -models");

            NoStackTrace.In(run);
            Assert.DoesNotContain("Unknown option", run.Err, StringComparison.Ordinal);
            Assert.Contains("w.bin", run.Out, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }
    }
}
