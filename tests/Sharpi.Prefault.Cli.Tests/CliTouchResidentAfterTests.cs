using System.Text.Json;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// <c>touch</c> says what stayed resident after it ran, measured, not assumed: in a memory cgroup smaller than the file
/// the kernel reclaims what the sweep brought in, and a touch that left less resident than it covered exits 1.
/// </summary>
public sealed class CliTouchResidentAfterTests
{
    [LinuxFact]
    public void TouchJson_OfAFileThatFits_SaysItIsAllResidentAfter()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);

        CliRun run = CliRun.Of("touch", "--json", file.Path);

        Assert.True(run.ExitCode == 0, run.Err);
        Assert.Equal(file.Length, run.Json().GetProperty("bytesResidentAfter").GetInt64());
    }

    [CgroupFact]
    public void Touch_InAMemoryCgroupSmallerThanTheFile_SaysWhatStayedResident_AndExitsOne()
    {
        using TestFile file = TestFile.Create(256 * TestFile.MiB);
        using MemoryCgroup group = MemoryCgroup.Create(200 * TestFile.MiB);

        CliRun json = InGroup(group, $"touch --gate always --json '{file.Path}'");
        file.Evict();
        CliRun text = InGroup(group, $"touch --gate always '{file.Path}'");

        NoStackTrace.In(json);
        Assert.True(json.ExitCode == 1, $"exit {json.ExitCode}\n{json.Out}\n{json.Err}");
        JsonElement result = json.Json();
        Assert.Equal(file.Length, result.GetProperty("bytes").GetInt64());
        long after = result.GetProperty("bytesResidentAfter").GetInt64();
        Assert.InRange(after, 1, file.Length - 1);
        Assert.Contains("stayed resident", json.Err, StringComparison.Ordinal);

        NoStackTrace.In(text);
        Assert.Equal(1, text.ExitCode);
        Assert.StartsWith("not all resident after:", text.Out, StringComparison.Ordinal);
        Assert.Contains("memory.max", text.Out + text.Err, StringComparison.Ordinal);
    }

    /// <summary>
    /// A file truncated while the touch ran: the pages past its new end left the page cache with the truncation, so less
    /// stayed resident than was touched. The tool said the kernel had reclaimed them because memory was short.
    /// </summary>
    [LinuxFact]
    public async Task Touch_OfAFileTruncatedWhileItRuns_SaysTheFileShrank_NotThatMemoryIsShort()
    {
        using TestFile file = TestFile.Create(256 * TestFile.MiB);
        using var output = new StringWriter();
        using var error = new TruncateAtFirstProgress(file.Path, TestFile.MiB);

        int exitCode = await Sharpi.Prefault.Cli.CliApp.RunAsync(["touch", "--gate", "always", file.Path], TextWriter.Synchronized(output),
            TextWriter.Synchronized(error), CancellationToken.None);

        string said = $"{output}\n{error}";
        Assert.True(error.Truncated, $"the case is real: the file shrank while the touch ran\n{said}");
        Assert.Equal(1, exitCode);
        Assert.DoesNotContain("memory is short", said, StringComparison.Ordinal);
        Assert.DoesNotContain("reclaimed", said, StringComparison.Ordinal);
        Assert.Contains("shrank while the touch ran", said, StringComparison.Ordinal);
    }

    /// <summary>The tool's stderr: truncates the file to <paramref name="length"/> at the first progress line.</summary>
    private sealed class TruncateAtFirstProgress(string path, long length) : StringWriter
    {
        public bool Truncated { get; private set; }

        public override void Write(char value)
        {
            base.Write(value);
            TruncateOnce();
        }

        public override void Write(string? value)
        {
            base.Write(value);
            TruncateOnce();
        }

        public override void Write(char[] buffer, int index, int count)
        {
            base.Write(buffer, index, count);
            TruncateOnce();
        }

        private void TruncateOnce()
        {
            if (Truncated || !GetStringBuilder().ToString().Contains("progress", StringComparison.Ordinal))
            {
                return;
            }

            Truncated = true;
            using var stream = new FileStream(path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete);
            stream.SetLength(length);
        }
    }

    private static CliRun InGroup(MemoryCgroup group, string toolArguments) =>
        CliProcess.RunShell($"echo $$ > '{group.ProcsFile}' && exec $TOOL {toolArguments}", timeout: TimeSpan.FromSeconds(120));
}
