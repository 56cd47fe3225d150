using System.Globalization;
using Sharpi.Prefault.Tests.Models;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// stdout that cannot be written is stdout's error (docs/cli.md: exit 1, "cannot write to stdout"), never blamed on a
/// model file, and never ignored. Run through a shell (a redirection, a pipe), with a timeout.
/// </summary>
public sealed class CliStdoutTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Evict_ToAFullStdout_BlamesStdoutNotTheFiles()
    {
        using TestFile first = TestFile.Create(64 * 1024);
        using TestFile second = TestFile.Create(64 * 1024);

        CliRun run = CliProcess.RunShell($"$TOOL evict '{first.Path}' '{second.Path}' >/dev/full");

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("cannot write to stdout", run.Err);
        Assert.Contains("No space left on device", run.Err);
        Assert.DoesNotContain($"{first.Path}:", run.Err);
        Assert.DoesNotContain($"{second.Path}:", run.Err);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Tensors_IntoAPipeWhoseReaderLeft_ExitsOneSayingSo()
    {
        // A table of megabytes, far past what the pipe holds and what head reads: the writes after head exits get EPIPE,
        // which .NET's console dropped without a word (exit 0, writing on into nothing).
        using var model = new CliModelFiles();
        var builder = new GgufBuilder();
        for (int i = 0; i < 20_000; i++)
        {
            builder.F32(string.Create(CultureInfo.InvariantCulture, $"blk.{i}.a_rather_long_tensor_name_for_a_wide_table.weight"), 1);
        }

        string gguf = model.Write("big.gguf", builder.Build());

        CliRun run = CliProcess.RunShell($"$TOOL tensors '{gguf}' | head -1 >/dev/null; exit ${{PIPESTATUS[0]}}");

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("cannot write to stdout", run.Err);
        Assert.Contains("Broken pipe", run.Err);
    }
}
