using Sharpi.Prefault.Cli.Commands;
using Sharpi.Prefault.Cli.Files;
using Sharpi.Prefault.Tests.Models;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>Hostile or unlucky input: each gets a one-line message and a contract exit code, never a stack trace.</summary>
public sealed class CliRobustnessTests
{
    [Theory]
    [InlineData("tensors")]
    [InlineData("touch")]
    [InlineData("resident")]
    public void ANulCharacterInAWeightMapPath_IsAMessage(string command)
    {
        using var model = new CliModelFiles();
        string index = model.WriteIndex(["\"a.weight\": \"shard\\u0000.safetensors\""]);

        CliRun run = CliRun.Of(command, index);

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("NUL", run.Err);
    }

    [Fact]
    public void AFileThatShrankAfterBeingSized_IsAMessage()
    {
        using var model = new CliModelFiles();
        string path = model.Write("shrinking.bin", new byte[64 * 1024]);
        var target = new FileTarget(path, path, 128 * 1024, null, TensorSelection.All, null);

        IOException e = Assert.Throws<IOException>(() => FileMapping.Open(target));

        Assert.Contains("shrank from 131072 to 65536 bytes", e.Message);
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData("$TOOL tensors {0} >&-")]
    [InlineData("$TOOL tensors {0} | head -c1 >/dev/null")]
    [InlineData("$TOOL resident {0} --json >&-")]
    [InlineData("$TOOL tensors {0} >/dev/full")]
    public void StdoutClosedOrGone_IsNoStackTrace(string commandLine)
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();

        CliRun run = CliProcess.RunShell("set -o pipefail; " + string.Format(System.Globalization.CultureInfo.InvariantCulture, commandLine, gguf));

        NoStackTrace.In(run);
        Assert.InRange(run.ExitCode, 0, 1);
        if (run.ExitCode == 1)
        {
            Assert.Contains("cannot write to stdout", run.Err);
        }
    }

    [Fact]
    public void Tensors_Json_OfAnEmptyWeightMap_IsValidJsonAndExitsOne()
    {
        using var model = new CliModelFiles();
        string index = model.WriteIndex([]);

        CliRun run = CliRun.Of("tensors", index, "--json");

        Assert.Equal(1, run.ExitCode);
        JsonElement errors = run.Json().GetProperty("errors");
        Assert.Equal(index, errors[0].GetProperty("name").GetString());
    }

    [Fact]
    public void Tensors_Json_OfAMissingFile_IsValidJson()
    {
        using var model = new CliModelFiles();

        CliRun run = CliRun.Of("tensors", Path.Combine(model.Directory, "missing.gguf"), "--json");

        Assert.Equal(1, run.ExitCode);
        Assert.Equal("no such file.", run.Json().GetProperty("errors")[0].GetProperty("message").GetString());
    }

    [Fact]
    public void Touch_OfAMissingFile_SaysNoSuchFile_NotAllEmpty()
    {
        using var model = new CliModelFiles();
        string missing = Path.Combine(model.Directory, "missing.bin");

        CliRun run = CliRun.Of("touch", missing);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"{missing}: no such file.", run.Err);
        Assert.DoesNotContain("all empty", run.Out + run.Err);
    }

    [Fact]
    public void TensorNamesWithEscapeSequences_ArePrintedEscaped()
    {
        using var model = new CliModelFiles();
        string gguf = model.Write("evil.gguf", new GgufBuilder().F32("\u001b]0;owned\u0007\u001b[2J", 4).F32("ok\u009bname", 4).Build());

        CliRun text = CliRun.Of("tensors", gguf);
        CliRun resident = CliRun.Of("resident", gguf);

        Assert.Equal(0, text.ExitCode);
        foreach (string output in new[] { text.Out, text.Err, resident.Out, resident.Err })
        {
            Assert.DoesNotContain('\u001b', output);
            Assert.DoesNotContain('\u0007', output);
            Assert.DoesNotContain('\u009b', output);
        }

        Assert.Contains("\\x1b]0;owned\\x07\\x1b[2J", text.Out);
        Assert.Contains("ok\\u009bname", text.Out);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void AnInvalidRamFraction_IsReportedOnStderr()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);

        CliRun run = CliProcess.Run(["touch", file.Path], new Dictionary<string, string?> { ["SHARPI_PREFAULT_RAM_FRACTION"] = "lots" });

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("warning", run.Err);
        Assert.Contains("lots", run.Err);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Resident_OfANonModelJson_MeasuresItAsAPlainFile()
    {
        using var model = new CliModelFiles();
        string config = model.Write("config.json", "{\"hidden_size\": 4096}");

        CliRun run = CliRun.Of("resident", config, "--json");

        Assert.Equal(0, run.ExitCode);
        JsonElement file = run.Json().GetProperty("files")[0];
        Assert.Equal(new FileInfo(config).Length, file.GetProperty("bytes").GetInt64());
        Assert.Equal(0, file.GetProperty("tensors").GetArrayLength());
    }
}
