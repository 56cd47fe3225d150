namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>What the test cgroups (<see cref="MemoryCgroup"/>, <see cref="PidsCgroup"/>) share.</summary>
internal static class CgroupDirectory
{
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
