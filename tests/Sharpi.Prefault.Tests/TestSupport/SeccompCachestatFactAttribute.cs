namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A fact that runs a child under a seccomp filter refusing cachestat, which it tells from a kernel without cachestat:
/// needs both (Linux 6.5 or later, and this filter's syscall numbers); skipped, with the reason, elsewhere.
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class SeccompCachestatFactAttribute : FactAttribute
{
    public SeccompCachestatFactAttribute(bool asNobody = false)
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Linux only: seccomp filters";
        }
        else if (SeccompFilter.Unsupported is string why)
        {
            Skip = why;
        }
        else if (Environment.OSVersion.Version < new Version(6, 5))
        {
            Skip = $"needs cachestat, Linux 6.5 or later, to tell a filter's EPERM from a kernel without it (this is {Environment.OSVersion})";
        }
        else if (asNobody && Unprivileged.WhyUnavailable is string unprivileged)
        {
            Skip = unprivileged;
        }
    }
}
