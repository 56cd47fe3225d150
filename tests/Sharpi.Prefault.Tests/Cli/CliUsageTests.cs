using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Cli;

public sealed class CliUsageTests
{
    [Fact]
    public void NoCommand_IsAUsageError()
    {
        CliRun run = CliRun.Of();

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("--help", run.Err);
    }

    [Theory]
    [InlineData("touch")]
    [InlineData("touch", "--gate", "sometimes", "x.bin")]
    [InlineData("resident", "--bogus", "x.bin")]
    [InlineData("frobnicate", "x.bin")]
    [InlineData("touch", "--tensor", "", "x.gguf")]
    public void BadCommandLine_ExitsWithTwo(params string[] args)
    {
        CliRun run = CliRun.Of(args);

        Assert.Equal(2, run.ExitCode);
        Assert.Empty(run.Out);
    }

    [Fact]
    public void Help_ListsEveryCommand()
    {
        CliRun run = CliRun.Of("--help");

        Assert.Equal(0, run.ExitCode);
        foreach (string command in new[] { "touch", "resident", "evict", "tensors", "lock" })
        {
            Assert.Contains(command, run.Out);
        }
    }

    [Theory]
    [InlineData("touch")]
    [InlineData("resident")]
    [InlineData("evict")]
    [InlineData("tensors")]
    [InlineData("lock")]
    public void MissingFile_IsNamedWithoutAStackTrace(string command)
    {
        string missing = Path.Combine(Path.GetTempPath(), $"sharpi-missing-{Guid.NewGuid():N}.gguf");

        CliRun run = CliRun.Of(command, missing);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"{missing}: no such file.", run.Err);
        Assert.DoesNotContain("   at ", run.Err);
        Assert.DoesNotContain("Exception", run.Err);
    }

    [Fact]
    public void TensorPatternOnAPlainFile_FailsThatFileOnly()
    {
        using TestFile plain = TestFile.Create(64 * 1024, evict: false);

        CliRun run = CliRun.Of("resident", plain.Path, "--tensor", "blk.*");

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("not a GGUF or safetensors model", run.Err);
    }
}
