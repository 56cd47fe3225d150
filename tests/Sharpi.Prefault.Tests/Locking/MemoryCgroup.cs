using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Locking;

/// <summary>
/// A memory cgroup made for one test, with a memory limit, removed on dispose (Linux, root). cgroup v2 where the
/// memory controller is on the unified hierarchy, else v1's memory hierarchy. Only child processes go in it, never
/// the test host.
/// </summary>
public sealed class MemoryCgroup : IDisposable
{
    private const string V2Root = "/sys/fs/cgroup";
    private const string V1Root = "/sys/fs/cgroup/memory";

    private static readonly Lazy<string?> Probe = new(() =>
    {
        if (!OperatingSystem.IsLinux())
        {
            return "cgroups need Linux";
        }

        if (!Environment.IsPrivilegedProcess)
        {
            return "creating a cgroup needs root";
        }

        if (Root() is null)
        {
            return $"no memory controller: neither {V2Root}/cgroup.subtree_control nor {V1Root} offers one";
        }

        try
        {
            using MemoryCgroup probe = Create(64 * TestFile.MiB);
            return null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return $"a memory cgroup could not be created: {e.Message}";
        }
    });

    private MemoryCgroup(string path, bool v2)
    {
        Path = path;
        IsV2 = v2;
    }

    /// <summary>Why this machine cannot give a test a memory cgroup, or null when it can (probed once, for real).</summary>
    public static string? Unavailable => Probe.Value;

    public string Path { get; }

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
        (string root, bool v2) = Root() ?? throw new IOException("no memory cgroup controller");
        string path = System.IO.Path.Combine(root, $"sharpi-prefault-test-{Guid.NewGuid():N}");
        Directory.CreateDirectory(path);
        var group = new MemoryCgroup(path, v2);
        try
        {
            File.WriteAllText(System.IO.Path.Combine(path, v2 ? "memory.max" : "memory.limit_in_bytes"), limitBytes.ToString(System.Globalization.CultureInfo.InvariantCulture));
            if (v2)
            {
                File.WriteAllText(System.IO.Path.Combine(path, "memory.swap.max"), "0");
            }

            return group;
        }
        catch
        {
            group.Dispose();
            throw;
        }
    }

    public void Dispose()
    {
        // A group can be removed once its last process has exited; the kernel may take a moment to notice.
        for (int attempt = 0; ; attempt++)
        {
            try
            {
                Directory.Delete(Path);
                return;
            }
            catch (IOException) when (attempt < 50)
            {
                Thread.Sleep(100);
            }
        }
    }

    private static (string Root, bool V2)? Root()
    {
        string controls = System.IO.Path.Combine(V2Root, "cgroup.subtree_control");
        if (File.Exists(controls) && File.ReadAllText(controls).Split(' ', '\n').Contains("memory"))
        {
            return (V2Root, true);
        }

        return File.Exists(System.IO.Path.Combine(V1Root, "memory.limit_in_bytes")) ? (V1Root, false) : null;
    }
}

/// <summary>A fact that needs a memory cgroup it may create (root, a memory controller); shows as skipped with the reason elsewhere.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class MemoryCgroupFactAttribute : FactAttribute
{
    public MemoryCgroupFactAttribute()
    {
        if (MemoryCgroup.Unavailable is string why)
        {
            Skip = $"needs a memory cgroup the test may create: {why}";
        }
    }
}
