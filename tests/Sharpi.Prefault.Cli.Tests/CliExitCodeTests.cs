namespace Sharpi.Prefault.Tests.Cli;

/// <summary>docs/cli.md's exit-code contract, on the cases operators hit.</summary>
public sealed class CliExitCodeTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Touch_PartialByTheRamGate_ExitsOneAndSaysPartialFirst()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);

        // A budget of a few bytes: the gate lets only part through. The variable is the process's, so a child runs it.
        CliRun run = CliProcess.Run(["touch", file.Path], new Dictionary<string, string?> { ["SHARPI_PREFAULT_RAM_FRACTION"] = "0.0000001" });

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.StartsWith("partial", run.Out, StringComparison.Ordinal);
    }

    [Fact]
    public void Touch_WithAGlobMatchingNothing_ExitsOneNamingTheGlob()
    {
        using var model = new CliModelFiles();

        CliRun run = CliRun.Of("touch", model.Gguf(), "--tensor", "blk.99.*", "--gate", "always");

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("--tensor 'blk.99.*': matches no tensor", run.Err);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Touch_UnderTheKillSwitch_SaysSoEvenWithGateAlways()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);

        CliRun run = CliProcess.Run(["touch", file.Path, "--gate", "always"], new Dictionary<string, string?> { ["SHARPI_PREFAULT"] = "off" });

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("SHARPI_PREFAULT=off", run.Err);
        Assert.Contains("kill switch wins over --gate always", run.Err);
        Assert.True(Residency.OfFile(file.Path).Percent < 50);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Lock_UnderTheKillSwitch_LocksNothingAndSaysSo()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);

        CliRun run = CliProcess.Run(["lock", file.Path], new Dictionary<string, string?> { ["SHARPI_PREFAULT"] = "off" });

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("nothing locked", run.Err);
        Assert.Contains("SHARPI_PREFAULT=off", run.Err);
    }

    [Fact]
    public void Lock_OfAnEmptyFile_ExitsOneWithAMessage()
    {
        using var model = new CliModelFiles();
        string empty = model.Write("empty.bin", []);

        CliRun run = CliRun.Of("lock", empty);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("nothing to lock", run.Err);
    }

    [Fact]
    public void Lock_WithAGlobMatchingNothing_ExitsOneWithAMessage()
    {
        using var model = new CliModelFiles();

        CliRun run = CliRun.Of("lock", model.Gguf(), "--tensor", "nope.*");

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("'nope.*': matches no tensor", run.Err);
    }
}
