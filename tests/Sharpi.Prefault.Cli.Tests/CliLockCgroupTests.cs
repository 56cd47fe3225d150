using System.Diagnostics;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// The real thing: `sharpi-prefault lock` (LockOptions.Default) in a child process inside a memory cgroup smaller than
/// the file. Locked pages cannot be reclaimed, so locking it all would end in the cgroup's OOM killer; the RAM gate
/// reads the cgroup's limit and locks the file's first part only.
/// </summary>
[Collection(ProcessMemoryFigures.Name)]
public sealed class CliLockCgroupTests(ITestOutputHelper output)
{
    private const long Limit = 512 * TestFile.MiB;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.MemoryCgroup))]
    public void Lock_InACgroupSmallerThanTheFile_LocksWithinTheLimit_InsteadOfBeingOomKilled()
    {
        using MemoryCgroup group = MemoryCgroup.Create(Limit);
        using TestFile file = TestFile.Create(Limit * 3 / 2); // evicted, so the child's page faults are charged to the group
        string cli = Path.Combine(AppContext.BaseDirectory, "sharpi-prefault.dll");
        string dotnet = Environment.ProcessPath is string host && Path.GetFileNameWithoutExtension(host) == "dotnet" ? host : "dotnet";

        // The shell moves itself into the group, then becomes the tool: nothing of the test host is charged there.
        var start = new ProcessStartInfo("/bin/sh") { RedirectStandardOutput = true, RedirectStandardError = true };
        start.ArgumentList.Add("-c");
        start.ArgumentList.Add("echo $$ > \"$1\" && exec \"$2\" \"$3\" lock \"$4\"");
        start.ArgumentList.Add("sh");
        foreach (string a in new[] { group.ProcsFile, dotnet, cli, file.Path })
        {
            start.ArgumentList.Add(a);
        }

        var stdout = new List<string>();
        var stderr = new List<string>();
        using var holding = new ManualResetEventSlim();
        using Process child = Process.Start(start)!;
        child.OutputDataReceived += (_, e) =>
        {
            if (e.Data is null)
            {
                return;
            }

            lock (stdout)
            {
                stdout.Add(e.Data);
            }

            if (e.Data.Contains("holding", StringComparison.Ordinal))
            {
                holding.Set();
            }
        };
        child.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is not null)
            {
                lock (stderr)
                {
                    stderr.Add(e.Data);
                }
            }
        };
        child.BeginOutputReadLine();
        child.BeginErrorReadLine();

        var clock = Stopwatch.StartNew();
        while (!holding.Wait(250) && !child.HasExited && clock.Elapsed < TimeSpan.FromSeconds(120))
        {
        }

        bool held = holding.IsSet;
        long oomKills = group.OomKills;
        if (!child.HasExited)
        {
            using Process kill = Process.Start("kill", ["-TERM", child.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
            kill.WaitForExit();
        }

        bool exited = child.WaitForExit(60_000);
        if (!exited)
        {
            child.Kill();
            child.WaitForExit();
        }

        child.WaitForExit(); // flush the redirected streams
        string said = string.Join('\n', stdout) + "\n" + string.Join('\n', stderr);
        output.WriteLine($"exit {child.ExitCode}, OOM kills in the group {oomKills}, held {held}:\n{said}");
        Assert.Equal(0, oomKills);
        Assert.NotEqual(137, child.ExitCode);
        Assert.True(exited, "the tool should exit on SIGTERM");
        Assert.Contains("RAM gate", said, StringComparison.Ordinal);
    }
}
