using System.Diagnostics;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A real memory cgroup made for one test (v2 where its memory controller is on, else the v1 memory hierarchy),
/// removed on dispose. Only child processes join it, never the test host.
/// </summary>
public sealed class MemoryCgroup : IDisposable
{
    private static readonly Lazy<string?> Unavailable = new(Probe);
    private readonly List<string> _shmFiles = [];

    private MemoryCgroup(string path, string procSelfCgroupLine, bool isV2)
    {
        Path = path;
        ProcSelfCgroupText = procSelfCgroupLine + "\n";
        IsV2 = isV2;
    }

    /// <summary>Why no group can be made here (not Linux, not root, no writable memory hierarchy), or null.</summary>
    public static string? WhyUnavailable => Unavailable.Value;

    public string Path { get; }

    /// <summary>What /proc/self/cgroup would say inside the group.</summary>
    public string ProcSelfCgroupText { get; }

    public bool IsV2 { get; }

    /// <summary>Write a process id here to move that process into the group.</summary>
    public string ProcsFile => System.IO.Path.Combine(Path, "cgroup.procs");

    /// <summary>Processes of the group the kernel's OOM killer killed so far.</summary>
    public long OomKills
    {
        get
        {
            string events = File.ReadAllText(System.IO.Path.Combine(Path, IsV2 ? "memory.events" : "memory.oom_control"));
            foreach (string line in events.Split('\n'))
            {
                if (line.StartsWith("oom_kill ", StringComparison.Ordinal))
                {
                    return long.Parse(line["oom_kill ".Length..], System.Globalization.CultureInfo.InvariantCulture);
                }
            }

            return 0;
        }
    }

    public static MemoryCgroup Create(long limitBytes)
    {
        (string path, bool v2) = CgroupDirectory.Create("memory", "memory");
        string name = System.IO.Path.GetFileName(path);
        File.WriteAllText(System.IO.Path.Combine(path, v2 ? "memory.max" : "memory.limit_in_bytes"), limitBytes.ToString(System.Globalization.CultureInfo.InvariantCulture));
        return new MemoryCgroup(path, v2 ? $"0::/{name}" : $"4:memory:/{name}", v2);
    }

    /// <summary>
    /// Charges <paramref name="bytes"/> of shared memory (a /dev/shm file written from inside the group) to the group:
    /// memory the kernel cannot reclaim without swap, and that stays charged after the writer exits.
    /// </summary>
    public void HoldUnreclaimable(long bytes)
    {
        string file = $"/dev/shm/sharpi-test-{Guid.NewGuid():N}";
        _shmFiles.Add(file);
        RunInside($"head -c {bytes} /dev/zero > {file}");
    }

    /// <summary>Runs a shell command inside the group and waits for it; returns its standard output.</summary>
    public string RunInside(string shellCommand, TimeSpan? timeout = null)
    {
        var start = new ProcessStartInfo("/bin/sh")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add("-c");
        start.ArgumentList.Add($"echo $$ > {ProcsFile} && {shellCommand}");
        using Process process = Process.Start(start)!;
        Task<string> stdout = process.StandardOutput.ReadToEndAsync();
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(timeout ?? TimeSpan.FromMinutes(2)))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"'{shellCommand}' did not finish inside {Path}");
        }

        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"'{shellCommand}' exited {process.ExitCode} inside {Path}: {stderr.Result}");
        }

        return stdout.Result;
    }

    public void Dispose()
    {
        foreach (string file in _shmFiles)
        {
            File.Delete(file);
        }

        // The group is empty once its children exit; its remaining charges move to the parent on removal.
        CgroupDirectory.RemoveWhenEmpty(Path);
    }

    private static string? Probe() => CgroupDirectory.WhyUnavailable("a memory cgroup", () => Create(1L << 30));
}
