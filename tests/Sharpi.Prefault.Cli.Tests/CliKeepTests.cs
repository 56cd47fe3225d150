namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// docs/cli.md's <c>keep</c>: run as a child process (it runs until a signal), with a short <c>--interval</c>; ranges are
/// evicted with posix_fadvise while it runs, and its <c>--json</c> lines are counted (looks, bytes), never timed.
/// </summary>
public sealed class CliKeepTests
{
    /// <summary>Polls for a condition at most this many times, 50 ms apart: a bound on a hang, not a timing claim.</summary>
    private const int Tries = 600;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void Keep_ReadsBackARangeThatLeftTheCache_AtTheNextLook()
    {
        using TestFile file = TestFile.Create(16 * TestFile.MiB);
        using CliProcess tool = CliProcess.Start(["keep", file.Path, "--interval", "100ms", "--mapping", "look", "--json"]);
        JsonElement first = WaitForLook(tool, look => look.GetProperty("look").GetInt64() == 1);
        Assert.Equal(file.Length, first.GetProperty("bytes").GetInt64());
        Assert.Equal(file.Length, first.GetProperty("residentAfterBytes").GetInt64());
        Assert.Equal(file.Length, first.GetProperty("residentBytes").GetInt64() + first.GetProperty("restoredBytes").GetInt64());

        // Evict 4 MiB in the middle (retried: a look that is reading back maps the pages, and the kernel keeps mapped pages).
        long evictAt = 6 * TestFile.MiB, evictLength = 4 * TestFile.MiB;
        long lastLookBefore = Evict(tool, file.Path, evictAt, evictLength);

        JsonElement restoring = WaitForLook(tool, look => look.GetProperty("look").GetInt64() > lastLookBefore && look.GetProperty("restoredBytes").GetInt64() > 0);
        Assert.InRange(restoring.GetProperty("look").GetInt64(), lastLookBefore + 1, lastLookBefore + 3); // the next look, or the one after when the eviction landed mid-look
        Assert.InRange(restoring.GetProperty("missingBytes").GetInt64(), 1, evictLength);
        Assert.Equal(restoring.GetProperty("missingBytes").GetInt64(), restoring.GetProperty("restoredBytes").GetInt64());
        Assert.Equal(evictLength, Residency.OfFile(file.Path, evictAt, evictLength).ResidentBytes);

        tool.Signal("TERM");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(20));
        NoStackTrace.In(run);
        Assert.Equal(0, run.ExitCode);
        JsonElement stop = Lines(run.Out).Last();
        Assert.Equal("stop", stop.GetProperty("event").GetString());
        Assert.True(stop.GetProperty("looks").GetInt64() >= restoring.GetProperty("look").GetInt64());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Pinnable16MiB))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void Keep_WhileNothingLeavesTheCache_ReadsNothing()
    {
        using TestFile file = TestFile.Create(16 * TestFile.MiB);
        using CliProcess tool = CliProcess.Start(["keep", file.Path, "--interval", "50ms", "--json"]);
        _ = WaitForLook(tool, look => look.GetProperty("look").GetInt64() >= 1);

        // Pinned once the first look has read it, so nothing can leave the cache: unpinned, a machine short of memory
        // reclaimed a few pages between two looks (20 KiB once), and keep rightly read them back. Every look that began
        // after the pin (by the time it prints) must find nothing gone and read nothing.
        using PinnedPages pinned = PinnedPages.Of(file.Path);
        DateTimeOffset pinnedAt = DateTimeOffset.UtcNow;
        long firstAfterPin = WaitForLook(tool, look => look.GetProperty("time").GetDateTimeOffset() > pinnedAt).GetProperty("look").GetInt64();
        _ = WaitForLook(tool, look => look.GetProperty("look").GetInt64() >= firstAfterPin + 7);
        tool.Signal("TERM");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(20));

        Assert.Equal(0, run.ExitCode);
        JsonElement[] looks = [.. Lines(run.Out).Where(l => l.GetProperty("event").GetString() == "look")];
        Assert.True(looks[0].GetProperty("ran").GetBoolean()); // the first look warms the cold file
        JsonElement[] quiet = [.. looks.Where(l => l.GetProperty("time").GetDateTimeOffset() > pinnedAt)];
        Assert.True(quiet.Length >= 8);
        foreach (JsonElement look in quiet)
        {
            Assert.Equal(0, look.GetProperty("missingBytes").GetInt64());
            Assert.Equal(0, look.GetProperty("ranges").GetInt32());
            Assert.Equal(0, look.GetProperty("restoredBytes").GetInt64());
            Assert.False(look.GetProperty("ran").GetBoolean());
        }

        // The total restored is what the looks before the pin read back: nothing after it.
        long beforePin = looks.Where(l => l.GetProperty("time").GetDateTimeOffset() <= pinnedAt).Sum(l => l.GetProperty("restoredBytes").GetInt64());
        Assert.Equal(beforePin, Lines(run.Out).Last().GetProperty("restoredBytes").GetInt64());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void Keep_WithTensor_MeasuresAndReadsBackOnlyTheSelection()
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();
        CliModelFiles.Evict(gguf);
        using CliProcess tool = CliProcess.Start(["keep", gguf, "--tensor", "blk.0.*", "--interval", "100ms", "--mapping", "look", "--json"]);
        JsonElement first = WaitForLook(tool, look => look.GetProperty("look").GetInt64() == 1);
        long selection = 2 * CliModelFiles.TensorBytes;
        Assert.Equal(selection, first.GetProperty("bytes").GetInt64());
        Assert.Equal(selection, first.GetProperty("restoredBytes").GetInt64());

        long before = Evict(tool, gguf, 0, new FileInfo(gguf).Length);
        JsonElement restoring = WaitForLook(tool, look => look.GetProperty("look").GetInt64() > before && look.GetProperty("restoredBytes").GetInt64() > 0);
        tool.Signal("TERM");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(20));

        Assert.Equal(0, run.ExitCode);
        Assert.Equal(selection, restoring.GetProperty("missingBytes").GetInt64());
        Assert.Equal(selection, restoring.GetProperty("restoredBytes").GetInt64());
        JsonElement file = Lines(run.Out).First().GetProperty("files")[0];
        Assert.Equal(2, file.GetProperty("tensors").GetInt32());
        Assert.Equal(selection, file.GetProperty("bytes").GetInt64());
    }

    /// <summary>
    /// The default held mapping: keep's process maps the file for its life, and an eviction of unmapped page cache
    /// (posix_fadvise(DONTNEED), which like DAMON's <c>unmapped</c> filter passes over mapped pages) takes an unmapped
    /// twin read the same way and leaves the kept file whole, with no look in between to read it back (--interval 1h).
    /// With <c>--mapping look</c> the same eviction takes the kept file too: what the scheme would page out.
    /// </summary>
    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData("held")]
    [InlineData("look")]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void Keep_WithItsMappingHeld_KeepsPagesAnUnmappedReclaimTakesFromATwin(string mapping)
    {
        using TestFile kept = TestFile.Create(16 * TestFile.MiB);
        using TestFile twin = TestFile.Create(16 * TestFile.MiB);
        using CliProcess tool = CliProcess.Start(["keep", kept.Path, "--interval", "1h", "--mapping", mapping, "--json"]);
        JsonElement first = WaitForLook(tool, look => look.GetProperty("look").GetInt64() == 1);
        Assert.Equal(kept.Length, first.GetProperty("residentAfterBytes").GetInt64());
        _ = File.ReadAllBytes(twin.Path);
        Assert.Equal(twin.Length, Residency.OfFile(twin.Path).ResidentBytes);

        bool mapped = File.ReadAllText($"/proc/{tool.Id}/maps").Contains(kept.Path, StringComparison.Ordinal);
        PageCache.Evict(kept.Path);
        PageCache.Evict(twin.Path);
        long keptResident = Residency.OfFile(kept.Path).ResidentBytes;
        long twinResident = Residency.OfFile(twin.Path).ResidentBytes;
        tool.Signal("TERM");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(20));

        Assert.Equal(0, run.ExitCode);
        Assert.Single(Lines(run.Out), l => l.GetProperty("event").GetString() == "look"); // nothing was read back
        Assert.Equal(0, twinResident); // the eviction works on an unmapped file
        if (mapping == "held")
        {
            Assert.True(mapped, $"keep's /proc/{tool.Id}/maps does not name {kept.Path}");
            Assert.Equal(kept.Length, keptResident);
        }
        else
        {
            Assert.False(mapped);
            Assert.Equal(0, keptResident);
        }
    }

    /// <summary>
    /// A held mapping follows the path: replaced by another file (renamed over it) it is mapped anew and kept warm; cut
    /// short it is let go and named; written back to its length it is kept again. Never a SIGBUS from the old mapping.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void Keep_WithItsMappingHeld_FollowsAFileReplacedOrTruncatedUnderIt()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        using CliProcess tool = CliProcess.Start(["keep", file.Path, "--interval", "50ms", "--json"]);
        _ = WaitForLook(tool, look => look.GetProperty("look").GetInt64() == 1);
        using (TestFile replacement = TestFile.Create(8 * TestFile.MiB))
        {
            File.Move(replacement.Path, file.Path, overwrite: true);
        }

        // The replacement, cold when renamed in, is read back through a new mapping of it.
        Assert.True(tool.WaitUntil(() => Residency.OfFile(file.Path).ResidentBytes == file.Length, TimeSpan.FromSeconds(30)), tool.Err);
        Assert.True(tool.WaitUntil(() => MapsInode(tool.Id, file.Path) == InodeOf(file.Path), TimeSpan.FromSeconds(30)), "keep still maps the replaced file");

        using (var stream = new FileStream(file.Path, FileMode.Open, FileAccess.Write))
        {
            stream.SetLength(TestFile.MiB);
        }

        Assert.True(tool.WaitUntil(() => tool.Err.Contains("shrank", StringComparison.Ordinal), TimeSpan.FromSeconds(30)), tool.Err);
        Assert.True(tool.WaitUntil(() => MapsInode(tool.Id, file.Path) is null, TimeSpan.FromSeconds(30)), "keep still maps the truncated file");
        using (var stream = new FileStream(file.Path, FileMode.Open, FileAccess.Write))
        {
            stream.SetLength(8 * TestFile.MiB);
        }

        Assert.True(tool.WaitUntil(() => tool.Err.Contains("usable again", StringComparison.Ordinal), TimeSpan.FromSeconds(30)), tool.Err);
        tool.Signal("TERM");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(20));
        NoStackTrace.In(run);
        Assert.Equal(0, run.ExitCode);
        Assert.Equal("stop", Lines(run.Out).Last().GetProperty("event").GetString());
    }

    /// <summary>The inode of the first mapping in the process's maps that names <paramref name="path"/>, or null.</summary>
    private static ulong? MapsInode(int pid, string path)
    {
        foreach (string line in File.ReadAllLines($"/proc/{pid}/maps"))
        {
            string[] fields = line.Split(' ', 6, StringSplitOptions.RemoveEmptyEntries);
            if (fields.Length == 6 && fields[5] == path)
            {
                return ulong.Parse(fields[4], System.Globalization.CultureInfo.InvariantCulture);
            }
        }

        return null;
    }

    private static ulong InodeOf(string path) =>
        ulong.Parse(CliProcess.RunShell($"stat -c %i '{path}'").Out.Trim(), System.Globalization.CultureInfo.InvariantCulture);

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData("INT")]
    [InlineData("TERM")]
    public void Keep_OnASignal_StopsAndExitsZero(string signal)
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using CliProcess tool = CliProcess.Start(["keep", file.Path, "--interval", "1h"]);
        Assert.True(tool.WaitFor(" look 1: ", TimeSpan.FromSeconds(30)), tool.Err);

        tool.Signal(signal);
        CliRun run = tool.Wait(TimeSpan.FromSeconds(20)); // an hour's interval: only the signal can end the wait

        NoStackTrace.In(run);
        Assert.Equal(0, run.ExitCode);
        Assert.StartsWith($"keeping 1.00 MiB of 1 file(s) warm, looking every 3600 s, mapped; until SIGTERM\n", run.Out, StringComparison.Ordinal);
        Assert.Matches(@"\nstopped after 1 look\(s\); restored [0-9.]+ [KM]iB in all\n$", run.Out);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Keep_UnderTheKillSwitch_ReadsNothingAndSaysSo()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        using CliProcess tool = CliProcess.Start(["keep", file.Path, "--interval", "50ms", "--json"], new Dictionary<string, string?> { ["SHARPI_PREFAULT"] = "off" });
        _ = WaitForLook(tool, look => look.GetProperty("look").GetInt64() >= 4);
        tool.Signal("TERM");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(20));

        Assert.Equal(0, run.ExitCode);
        Assert.True(Lines(run.Out).First().GetProperty("killSwitch").GetBoolean());
        foreach (JsonElement look in Lines(run.Out).Where(l => l.GetProperty("event").GetString() == "look"))
        {
            Assert.False(look.GetProperty("ran").GetBoolean());
            Assert.Equal(0, look.GetProperty("restoredBytes").GetInt64());
            Assert.StartsWith("SHARPI_PREFAULT=off", look.GetProperty("reason").GetString(), StringComparison.Ordinal);
        }

        Assert.True(Residency.OfFile(file.Path).ResidentBytes <= TestFile.MiB); // at most what reading the magic brought in
        Assert.Contains("nothing restored: SHARPI_PREFAULT=off", run.Err);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Keep_WithAnUnknownKillSwitchValue_Warns_WithItsInvisibleCharactersWrittenOut()
    {
        // "off" and a zero-width space, pasted from a chat: no kill switch (the library's one parse says so), and the
        // warning shows the character, as a run's does; keep's own gate read it silently as auto before. The file stays
        // resident, so no look runs a prefault (whose own warning would hide the gate's silence).
        using TestFile file = TestFile.Create(TestFile.MiB, evict: false);
        using CliProcess tool = CliProcess.Start(["keep", file.Path, "--interval", "50ms", "--json"], new Dictionary<string, string?> { ["SHARPI_PREFAULT"] = "off\u200B" });
        _ = WaitForLook(tool, look => look.GetProperty("look").GetInt64() >= 3);
        tool.Signal("TERM");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(20));

        Assert.Equal(0, run.ExitCode);
        Assert.False(Lines(run.Out).First().GetProperty("killSwitch").GetBoolean());
        Assert.Contains(@"SHARPI_PREFAULT has the unknown value 'off\u200B'", run.Err);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.MemoryCgroup))]
    public void Keep_InACgroupWithLittleRoom_HoldsWhatFitsAndDoesNotFightReclaim()
    {
        // 512 MiB limit, 256 MiB of it held by shared memory: a 256 MiB model does not fit beside the runtime. The gate
        // weighs the whole selection, so keep holds the first part and leaves the rest: it does not read back, look
        // after look, what the kernel must reclaim from the same group.
        using MemoryCgroup group = MemoryCgroup.Create(512 * TestFile.MiB);
        group.HoldUnreclaimable(256 * TestFile.MiB);
        using TestFile file = TestFile.Create(256 * TestFile.MiB);

        using CliProcess tool = CliProcess.StartShell($"echo $$ > {group.ProcsFile} && exec $TOOL keep {file.Path} --interval 100ms --json");
        _ = WaitForLook(tool, look => look.GetProperty("look").GetInt64() >= 6);
        tool.Signal("TERM");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(30));

        Assert.True(run.ExitCode == 0, run.Err);
        JsonElement[] looks = [.. Lines(run.Out).Where(l => l.GetProperty("event").GetString() == "look")];
        long first = looks[0].GetProperty("restoredBytes").GetInt64();
        Assert.True(looks[0].GetProperty("partial").GetBoolean());
        Assert.Contains("cgroup limit", looks[0].GetProperty("reason").GetString(), StringComparison.Ordinal);
        Assert.InRange(first, 32 * TestFile.MiB, 240 * TestFile.MiB);
        long later = looks.Skip(1).Sum(l => l.GetProperty("restoredBytes").GetInt64());
        Assert.True(later < 32 * TestFile.MiB, $"read back {later} bytes after the first look: keep is fighting the group's reclaim");
        Assert.Equal(0, group.OomKills);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Keep_LowersItsWorkingThread_ToNice19AndBestEffortIoLevel7()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using CliProcess tool = CliProcess.Start(["keep", file.Path, "--interval", "1h"]);
        Assert.True(tool.WaitFor(" look 1: ", TimeSpan.FromSeconds(30)), tool.Err);

        string task = Directory.GetDirectories($"/proc/{tool.Id}/task")
            .Single(t => File.ReadAllText(Path.Combine(t, "comm")).Trim() == "sharpi-keep");
        string tid = Path.GetFileName(task);
        string stat = File.ReadAllText(Path.Combine(task, "stat"));
        string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' '); // fields from the 3rd (state) on
        using var ionice = System.Diagnostics.Process.Start(new System.Diagnostics.ProcessStartInfo("ionice", ["-p", tid]) { RedirectStandardOutput = true })!;
        string io = ionice.StandardOutput.ReadToEnd().Trim();
        ionice.WaitForExit();
        tool.Signal("TERM");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(20));

        Assert.Equal("19", fields[16]); // nice, the 19th field of /proc/[pid]/task/[tid]/stat
        Assert.Equal("best-effort: prio 7", io);
        Assert.Equal(0, run.ExitCode);
        Assert.DoesNotContain("higher priority than asked", run.Err);
    }

    [Theory]
    [InlineData("0")]
    [InlineData("0ms")]
    [InlineData("-5s")]
    [InlineData("2d")]
    [InlineData("25h")]
    [InlineData("soon")]
    public void Keep_WithABadInterval_IsAUsageError(string interval)
    {
        using TestFile file = TestFile.Create(4096);

        CliRun run = CliRun.Of("keep", file.Path, "--interval", interval);

        Assert.Equal(2, run.ExitCode);
        Assert.Empty(run.Out);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Keep_OfNothing_ExitsOneAtOnce()
    {
        using TestFile empty = TestFile.Create(0);

        CliRun run = CliRun.Of("keep", empty.Path, empty.Path + ".missing", "--json");

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("nothing to keep warm", run.Err);
        JsonElement stop = Lines(run.Out).Single();
        Assert.Equal("stop", stop.GetProperty("event").GetString());
        Assert.Equal(2, stop.GetProperty("failures").GetArrayLength());
    }

    /// <summary>Evicts the range until it is out (with <c>--mapping look</c>, a look holds it mapped for a moment); returns the last look seen before.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static long Evict(CliProcess tool, string path, long offset, long length)
    {
        for (int attempt = 0; attempt < Tries; attempt++)
        {
            long lastLook = Lines(tool.Out).Where(l => l.GetProperty("event").GetString() == "look").Select(l => l.GetProperty("look").GetInt64()).DefaultIfEmpty(0).Max();
            PageCache.Evict(path, offset, length);
            if (Residency.OfFile(path, offset, length).ResidentBytes == 0)
            {
                return lastLook;
            }

            Thread.Sleep(10);
        }

        Assert.Fail("the range never left the cache");
        return 0;
    }

    private static JsonElement WaitForLook(CliProcess tool, Func<JsonElement, bool> condition)
    {
        for (int attempt = 0; attempt < Tries; attempt++)
        {
            foreach (JsonElement line in Lines(tool.Out))
            {
                if (line.GetProperty("event").GetString() == "look" && condition(line))
                {
                    return line;
                }
            }

            Thread.Sleep(50);
        }

        Assert.Fail($"no such look in {Tries} tries. stdout: {tool.Out} stderr: {tool.Err}");
        return default;
    }

    private static List<JsonElement> Lines(string output)
    {
        var lines = new List<JsonElement>();
        foreach (string line in output.Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            using var document = JsonDocument.Parse(line);
            lines.Add(document.RootElement.Clone());
        }

        return lines;
    }
}
