namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A theory that installs a real seccomp filter in a child process (<see cref="SeccompFilter"/>), and shows as skipped,
/// with the reason, where it cannot (not Linux, an architecture the filter has no numbers for). With
/// <see cref="MasksProcMaps"/> it also needs root and util-linux's unshare, to mask the child's /proc/PID/maps.
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class SeccompTheoryAttribute : TheoryAttribute
{
    public SeccompTheoryAttribute(bool masksProcMaps = false)
    {
        MasksProcMaps = masksProcMaps;
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Linux only: seccomp filters";
        }
        else if (SeccompFilter.Unsupported is string why)
        {
            Skip = why;
        }
        else if (masksProcMaps && !Environment.IsPrivilegedProcess)
        {
            Skip = "needs root: masks the child's /proc/PID/maps with a bind mount in a mount namespace of its own";
        }
        else if (masksProcMaps && !File.Exists("/usr/bin/unshare") && !File.Exists("/bin/unshare"))
        {
            Skip = "needs unshare(1) (util-linux) to give the child a mount namespace, and there is none";
        }
    }

    public bool MasksProcMaps { get; }
}
