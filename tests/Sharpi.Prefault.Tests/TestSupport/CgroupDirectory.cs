namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>What the test cgroups (<see cref="MemoryCgroup"/>, <see cref="PidsCgroup"/>, <see cref="ReadThrottle"/>) share: making, probing and removing a group.</summary>
internal static class CgroupDirectory
{
    /// <summary>
    /// Makes a new group for <paramref name="controller"/> (<c>memory</c>, <c>pids</c>): under cgroup v2 where the root
    /// enables that controller for its children, else under v1's hierarchy of that name.
    /// </summary>
    /// <param name="controller">The controller's name under v2 (and v1, unless <paramref name="v1Name"/> says otherwise).</param>
    /// <param name="isV2">True when the group was made under cgroup v2.</param>
    /// <param name="v1Name">The v1 hierarchy's name where it differs (v2's <c>io</c> is v1's <c>blkio</c>).</param>
    public static string Create(string controller, out bool isV2, string? v1Name = null)
    {
        string name = $"sharpi-test-{Guid.NewGuid():N}";
        isV2 = File.Exists("/sys/fs/cgroup/cgroup.subtree_control")
            && File.ReadAllText("/sys/fs/cgroup/cgroup.subtree_control").Split(' ', '\n').Contains(controller);
        string path = isV2 ? $"/sys/fs/cgroup/{name}" : $"/sys/fs/cgroup/{v1Name ?? controller}/{name}";
        Directory.CreateDirectory(path);
        return path;
    }

    /// <summary>Why no <paramref name="controller"/> group can be made here (not Linux, not root, no such controller), or null: it makes one and removes it.</summary>
    public static string? WhyUnavailable(string controller, Func<IDisposable> create)
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
            return $"cannot create a {controller} cgroup here ({ex.GetType().Name}: {ex.Message}); run as root on a machine with a {controller} controller";
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
}
