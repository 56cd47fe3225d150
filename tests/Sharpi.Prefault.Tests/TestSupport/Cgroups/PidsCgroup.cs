namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A real pids cgroup made for one test (v2 where its pids controller is on, else the v1 pids hierarchy), removed on
/// dispose. Only child processes join it (through <see cref="ProcsFile"/>), never the test host.
/// </summary>
public sealed class PidsCgroup : IDisposable
{
    private static readonly Lazy<string?> Unavailable = new(Probe);

    private PidsCgroup(string path)
    {
        Path = path;
    }

    /// <summary>Why no group can be made here (not Linux, not root, no pids controller), or null.</summary>
    public static string? WhyUnavailable => Unavailable.Value;

    /// <summary>The group's directory: pids.max and pids.current are there.</summary>
    public string Path { get; }

    /// <summary>Write a process id here to move that process into the group.</summary>
    public string ProcsFile => System.IO.Path.Combine(Path, "cgroup.procs");

    public static PidsCgroup Create()
    {
        (string path, _) = CgroupDirectory.Create("pids", "pids");
        if (!File.Exists(System.IO.Path.Combine(path, "pids.max")))
        {
            Directory.Delete(path);
            throw new IOException($"{path} has no pids.max: the pids controller is not enabled for it");
        }

        return new PidsCgroup(path);
    }

    public void Dispose()
    {
        // The group is empty once its children exit.
        CgroupDirectory.RemoveWhenEmpty(Path);
    }

    private static string? Probe() => CgroupDirectory.WhyUnavailable("a pids cgroup", Create);
}
