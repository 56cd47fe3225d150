namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>What the test cgroups (<see cref="MemoryCgroup"/>, <see cref="PidsCgroup"/>, <see cref="IoThrottleCgroup"/>) share.</summary>
internal static class CgroupDirectory
{
    /// <summary>
    /// Makes a cgroup of its own for one test under the hierarchy that has <paramref name="v2Controller"/>: the unified
    /// one (v2) where the root hands that controller to its children, else the v1 hierarchy
    /// <paramref name="v1Hierarchy"/>. Returns its directory, and whether it is v2.
    /// </summary>
    public static (string Path, bool IsV2) Create(string v2Controller, string v1Hierarchy)
    {
        string name = $"sharpi-test-{Guid.NewGuid():N}";
        bool v2 = IsV2ControllerOn(v2Controller);
        string parent = v2 ? "/sys/fs/cgroup" : $"/sys/fs/cgroup/{v1Hierarchy}";
        if (!Directory.Exists(parent))
        {
            // Never made here: on a v2 root that would be a new group named after the v1 hierarchy.
            throw new DirectoryNotFoundException($"the v2 root does not enable '{v2Controller}' and there is no v1 hierarchy at {parent}");
        }

        string path = System.IO.Path.Combine(parent, name);
        Directory.CreateDirectory(path);
        return (path, v2);
    }

    /// <summary>Why <paramref name="create"/> cannot make a group here (the reason a test's skip shows), or null when it can.</summary>
    public static string? WhyUnavailable(string what, Func<IDisposable> create)
    {
        if (!OperatingSystem.IsLinux())
        {
            return "cgroups are Linux only";
        }

        try
        {
            create().Dispose();
            return null;
        }
#pragma warning disable CA1031 // Any failure means "no group here", told in the skip reason.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            return $"cannot create {what} here ({ex.GetType().Name}: {ex.Message}); run as root on a machine with that controller";
        }
    }

    /// <summary>Removes a cgroup's directory, retrying for up to a second while its last processes finish exiting.</summary>
    public static void RemoveWhenEmpty(string path)
    {
        for (int attempt = 0; attempt < 50; attempt++)
        {
            try
            {
                Directory.Delete(path);
                return;
            }
            catch (IOException)
            {
                Thread.Sleep(20);
            }
        }
    }

    /// <summary>Whether the v2 root enables <paramref name="controller"/> for its children (cgroup.subtree_control).</summary>
    private static bool IsV2ControllerOn(string controller) =>
        File.Exists("/sys/fs/cgroup/cgroup.subtree_control")
        && File.ReadAllText("/sys/fs/cgroup/cgroup.subtree_control").Split(' ', '\n').Contains(controller);
}
