namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// <c>touch</c> says what stayed resident after it ran, measured, not assumed: in a memory cgroup smaller than the file
/// the kernel reclaims what the sweep brought in, and a touch that left less resident than it covered exits 1.
/// </summary>
public sealed class CliTouchResidentAfterTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void TouchJson_OfAFileThatFits_SaysItIsAllResidentAfter()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);

        CliRun run = CliRun.Of("touch", "--json", file.Path);

        Assert.True(run.ExitCode == 0, run.Err);
        Assert.Equal(file.Length, run.Json().GetProperty("bytesResidentAfter").GetInt64());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.MemoryCgroup))]
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
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task Touch_OfAFileTruncatedWhileItRuns_SaysTheFileShrank_NotThatMemoryIsShort()
    {
        // A race: the truncation lands while the sweep runs (once 384 MiB of 512 are in), and a run whose sweep had not yet counted
        // the pages the truncation took leaves no shortfall to explain (the pages past the new end fail instead, named
        // on stderr); up to 8 tries for one that does.
        var runs = new List<string>();
        for (int attempt = 0; attempt < 8; attempt++)
        {
            using TestFile file = TestFile.Create(512 * TestFile.MiB);
            using var output = new StringWriter();
            using var error = new StringWriter();
            using var truncator = new TruncateOnceItFills(file.Path, TestFile.MiB);

            int exitCode = await Sharpi.Prefault.Cli.CliApp.RunAsync(["touch", "--gate", "always", file.Path], TextWriter.Synchronized(output),
                TextWriter.Synchronized(error), CancellationToken.None);

            string said = $"{output}\n{error}";
            bool truncated = truncator.Stop();
            runs.Add($"truncated {truncated}, exit {exitCode}: {said}");
            Assert.DoesNotContain("memory is short", said, StringComparison.Ordinal);
            Assert.DoesNotContain("reclaimed", said, StringComparison.Ordinal);
            if (truncated && said.Contains("not all resident after:", StringComparison.Ordinal))
            {
                Assert.Equal(1, exitCode);
                Assert.Contains("shrank while the touch ran", said, StringComparison.Ordinal);
                return;
            }
        }

        Assert.Fail($"the case is real: no try left a shortfall after truncating the file\n{string.Join("\n", runs)}");
    }

    /// <summary>
    /// Truncates the file to <paramref name="length"/> once the sweep has brought 16 MiB of it in (a redirected run of
    /// under a second writes no progress line to wait for): polled on a thread of its own, as a race.
    /// </summary>
    private sealed class TruncateOnceItFills : IDisposable
    {
        private readonly Thread _thread;
        private volatile bool _stop;
        private volatile bool _truncated;

        public TruncateOnceItFills(string path, long length)
        {
            _thread = new Thread(() =>
            {
                while (!_stop)
                {
                    if (Residency.OfFile(path).ResidentBytes >= 384 * TestFile.MiB) // past the first eight 32 MiB chunks in flight: some were counted already
                    {
                        using var stream = new FileStream(path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete);
                        stream.SetLength(length);
                        _truncated = true;
                        return;
                    }

                    Thread.Sleep(1);
                }
            }) { IsBackground = true };
            _thread.Start();
        }

        /// <summary>Stops polling; true when the file was truncated.</summary>
        public bool Stop()
        {
            _stop = true;
            _thread.Join();
            return _truncated;
        }

        public void Dispose() => Stop();
    }

    private static CliRun InGroup(MemoryCgroup group, string toolArguments) =>
        CliProcess.RunShell($"echo $$ > '{group.ProcsFile}' && exec $TOOL {toolArguments}", timeout: TimeSpan.FromSeconds(120));
}
