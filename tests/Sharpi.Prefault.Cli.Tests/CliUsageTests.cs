using Sharpi.Prefault.Cli;

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

    [Theory]
    [InlineData("frobnicate", "x.bin")]
    [InlineData("frobnicate")]
    public void UnknownCommand_IsOneErrorNamingTheCommands(params string[] args)
    {
        CliRun run = CliRun.Of(args);

        Assert.Equal(2, run.ExitCode);
        Assert.Equal(
            ["sharpi-prefault: unknown command 'frobnicate'; the commands are touch, resident, evict, tensors, lock, keep.", "Run 'sharpi-prefault --help' for usage."],
            run.Err.Split('\n', StringSplitOptions.RemoveEmptyEntries));
    }

    [Theory]
    [InlineData("tensors", "a.gguf", "b\u001b]0;owned\u0007\u001b[2J.gguf")] // a second path where the command takes one, out of a shell glob
    [InlineData("touch", "m.gguf", "--gate", "\u001b]0;x\u0007")]
    [InlineData("touch", "-\u001b[31m")]
    public void UsageErrors_NeverEchoAnEscapeSequence(params string[] args)
    {
        CliRun run = CliRun.Of(args);

        Assert.Equal(2, run.ExitCode);
        Assert.DoesNotContain('\u001b', run.Err);
        Assert.DoesNotContain('\u0007', run.Err);
        Assert.Contains("\\x1b", run.Err, StringComparison.Ordinal); // escaped, not dropped: the user sees what was given
    }

    [Fact]
    public void UnknownOptionBeforeAnyCommand_IsOneError()
    {
        CliRun run = CliRun.Of("--jsn");

        Assert.Equal(2, run.ExitCode);
        Assert.Equal(2, run.Err.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);
        Assert.StartsWith("sharpi-prefault: unknown option '--jsn'; give a command first: touch, ", run.Err, StringComparison.Ordinal);
    }

    /// <summary>
    /// Every default that help shows is one the option takes back as written: keep's --interval showed
    /// <c>[default: 00:00:10]</c> (a TimeSpan's text), which --interval refuses (it takes 10s).
    /// </summary>
    [Fact]
    public void Help_EveryDefaultShown_IsAValueTheOptionAccepts()
    {
        var checkedDefaults = new List<string>();
        foreach (string command in new[] { "touch", "resident", "evict", "tensors", "lock", "keep" })
        {
            CliRun help = CliRun.Of(command, "--help");
            foreach (System.Text.RegularExpressions.Match m in System.Text.RegularExpressions.Regex.Matches(help.Out, @"(--[a-z-]+)[^\n]*\[default: ([^\]]+)\]"))
            {
                string option = m.Groups[1].Value, value = m.Groups[2].Value;
                IReadOnlyList<System.CommandLine.Parsing.ParseError> errors = CliApp.Build().Parse([command, option, value, "x.bin"]).Errors;
                Assert.True(errors.Count == 0, $"{command} --help shows '{option}' defaulting to '{value}', which it refuses: {string.Join("; ", errors.Select(e => e.Message))}");
                checkedDefaults.Add($"{command} {option} {value}");
            }
        }

        Assert.Contains("touch --gate fits", checkedDefaults);
        Assert.Contains("keep --gate fits", checkedDefaults);
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
    public void Resident_OfNoUsableFile_PrintsNoTableHeader()
    {
        string missing = Path.Combine(Path.GetTempPath(), $"sharpi-missing-{Guid.NewGuid():N}.gguf");

        CliRun run = CliRun.Of("resident", missing);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"{missing}: no such file.", run.Err);
        Assert.Empty(run.Out);
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
