namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// The tool run as a service user that may read root-owned weights (0644) but not write them: the kernel tells such a
/// user nothing of the file's page cache (cachestat refuses with EPERM; mincore answers "resident" for every page).
/// Each command must say so rather than believe it. The file's real residency is measured by the test host (root).
/// </summary>
public sealed class CliUnprivilegedTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Unprivileged))]
    public void Resident_OfAColdFileTheUserCannotWrite_SaysUnknown_AndExitsOne()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        Assert.Equal(0, Residency.OfFile(file.Path).ResidentBytes); // measured as root: cold

        CliRun run = AsNobody($"resident '{file.Path}'");

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.DoesNotContain("100.0%", run.Out, StringComparison.Ordinal);
        Assert.Contains("unknown", run.Out, StringComparison.Ordinal);
        Assert.Contains($"{file.Path}: residency unknown", run.Err, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Unprivileged))]
    public void ResidentJson_OfAColdFileTheUserCannotWrite_CountsItAsUnknown_NotResident()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);

        CliRun run = AsNobody($"resident --json '{file.Path}'");

        Assert.Equal(1, run.ExitCode);
        JsonElement entry = run.Json().GetProperty("files")[0];
        Assert.Equal(0, entry.GetProperty("residentBytes").GetInt64());
        Assert.Equal(file.Length, entry.GetProperty("unknownBytes").GetInt64());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Unprivileged))]
    public void ResidentMin_OfAColdFileTheUserCannotWrite_IsNotWarm()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);

        CliRun run = AsNobody($"resident --min 99 '{file.Path}'");

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.StartsWith("not warm (--min 99%):", run.Out, StringComparison.Ordinal);
        Assert.Contains("unknown", run.Out, StringComparison.Ordinal);
        Assert.Contains("cannot write", run.Err, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Unprivileged))]
    public void Touch_OfAColdFileTheUserCannotWrite_ReadsItIn_WithoutClaimingItWasResident()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);

        CliRun run = AsNobody($"touch --json '{file.Path}'");

        NoStackTrace.In(run);
        Assert.True(run.ExitCode == 0, run.Err);
        JsonElement json = run.Json();
        Assert.True(json.GetProperty("ran").GetBoolean());
        Assert.Equal(0, json.GetProperty("bytesAlreadyResident").GetInt64());
        Assert.Equal(file.Length, json.GetProperty("bytesAlreadyResidentUnknown").GetInt64());
        Assert.DoesNotContain("already resident", json.GetProperty("reason").GetString(), StringComparison.Ordinal);
        Assert.Equal(file.Length, json.GetProperty("bytesResidentAfter").GetInt64()); // the pages this run mapped, seen in its page tables
        Assert.Equal(file.Length, Residency.OfFile(file.Path).ResidentBytes); // measured as root
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Unprivileged))]
    public void Evict_OfAWarmFileTheUserCannotWrite_DropsIt_AndSaysItCannotTellHowMuch()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB, evict: false);
        _ = File.ReadAllBytes(file.Path);
        Assert.Equal(file.Length, Residency.OfFile(file.Path).ResidentBytes);

        CliRun run = AsNobody($"evict '{file.Path}'");

        NoStackTrace.In(run);
        Assert.True(run.ExitCode == 0, run.Err);
        Assert.Equal(0, Residency.OfFile(file.Path).ResidentBytes); // posix_fadvise needs only a reader
        Assert.DoesNotContain("mapped by a live process", run.Err, StringComparison.Ordinal);
        Assert.DoesNotContain("still resident", run.Out, StringComparison.Ordinal);
        Assert.Contains("unknown", run.Out, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Unprivileged))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void Keep_OfAFileTheUserCannotWrite_ReadsBackWhatLeftTheCache()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        using CliProcess tool = CliProcess.StartShell($"exec {Unprivileged.Setpriv}$TOOL keep '{file.Path}' --interval 100ms --mapping look --json");
        Assert.True(tool.WaitFor("\"look\":2", TimeSpan.FromSeconds(30)), tool.Err);
        Assert.Equal(file.Length, Residency.OfFile(file.Path).ResidentBytes); // the first look warmed it

        // Evicted by root between looks (retried: a look maps the pages while it looks, and the kernel keeps mapped pages).
        bool restored = false;
        for (int i = 0; i < 600 && !restored; i++)
        {
            file.Evict();
            if (Residency.OfFile(file.Path).ResidentBytes == file.Length)
            {
                continue;
            }

            for (int j = 0; j < 100 && !restored; j++)
            {
                Thread.Sleep(50);
                restored = Residency.OfFile(file.Path).ResidentBytes == file.Length;
            }
        }

        tool.Signal("TERM");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(20));
        NoStackTrace.In(run);
        Assert.True(restored, $"keep never read the evicted file back. stdout:\n{run.Out}\nstderr:\n{run.Err}");
        Assert.Equal(0, run.ExitCode);
    }

    private static CliRun AsNobody(string toolArguments) =>
        CliProcess.RunShell($"exec {Unprivileged.Setpriv}$TOOL {toolArguments}", timeout: TimeSpan.FromSeconds(60));
}
