namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// docs/cli.md: a model file whose header cannot be read is a plain file to every command that works on bytes (touch,
/// evict, lock, resident: exit 0), and an error naming the header's fault where the tensor table is asked for.
/// </summary>
public sealed class CliMalformedModelTests
{
    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData("touch")]
    [InlineData("evict")]
    [InlineData("resident")]
    public void AMalformedGguf_IsWorkedOnAsAPlainFile(string command)
    {
        using var model = new CliModelFiles();
        string gguf = model.Write("x.gguf", [.. "GGUF"u8, .. new byte[64 * 1024]]);

        CliRun run = CliRun.Of(command, gguf, "--json");

        Assert.True(run.ExitCode == 0, run.Err);
        Assert.Equal(64 * 1024 + 4, run.Json().GetProperty("files")[0].GetProperty("bytes").GetInt64());
    }

    [Fact]
    public void Resident_OfAMalformedGguf_SaysWhyItShowsNoTensors()
    {
        using var model = new CliModelFiles();
        string gguf = model.Write("x.gguf", "not a model at all, despite its name");

        CliRun run = CliRun.Of("resident", gguf);

        Assert.Equal(0, run.ExitCode);
        Assert.Contains($"{gguf}: read as a plain file (", run.Err);
    }

    /// <summary>
    /// The error line is <c>sharpi-prefault: FILE: at offset N: what</c>, the file named once: the reader's message
    /// starts with the file's full path, and was printed after the file as given (<c>x.gguf: /tmp/.../x.gguf: at ...</c>).
    /// </summary>
    [Theory]
    [InlineData("tensors")]
    [InlineData("resident")]
    public void AMalformedGguf_IsNamedOnce(string command)
    {
        using var model = new CliModelFiles();
        string gguf = model.Write("x.gguf", "not a model at all, despite its name");

        CliRun run = CliRun.Of(command, gguf);

        string line = Assert.Single(run.Err.Split('\n', StringSplitOptions.RemoveEmptyEntries), l => l.Contains("at offset 0", StringComparison.Ordinal));
        Assert.Equal(1, line.Split("x.gguf").Length - 1);
        Assert.StartsWith($"sharpi-prefault: {gguf}: ", line, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("tensors")]
    [InlineData("resident", "--tensor", "*")]
    [InlineData("touch", "--tensor", "*")]
    public void AMalformedGguf_IsAnErrorWhereTensorsAreAskedFor(string command, params string[] options)
    {
        using var model = new CliModelFiles();
        string gguf = model.Write("x.gguf", "not a model at all, despite its name");

        CliRun run = CliRun.Of([command, gguf, .. options]);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"{gguf}: ", run.Err);
        Assert.DoesNotContain("read as a plain file", run.Err);
    }
}
