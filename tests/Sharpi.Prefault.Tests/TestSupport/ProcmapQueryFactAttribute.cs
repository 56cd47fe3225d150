namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>A fact that needs the kernel's PROCMAP_QUERY ioctl (Linux 6.11+), shown as skipped, with the reason, elsewhere.</summary>
public sealed class ProcmapQueryFactAttribute : FactAttribute
{
    public ProcmapQueryFactAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Linux only: PROCMAP_QUERY is an ioctl of /proc/self/maps.";
        }
        else if (!MappingQuery.IsQuerySupported)
        {
            Skip = $"needs PROCMAP_QUERY (Linux 6.11+); this kernel is {Environment.OSVersion.Version}.";
        }
    }
}
