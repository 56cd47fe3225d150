namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>A fact that needs cachestat(2) (Linux 6.5+); skipped, with the reason, elsewhere.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class CachestatFactAttribute : FactAttribute
{
    public CachestatFactAttribute()
    {
        if (!OperatingSystem.IsLinux() || Environment.OSVersion.Version < new Version(6, 5))
        {
            Skip = $"needs cachestat, Linux 6.5 or later (this is {Environment.OSVersion})";
        }
    }
}
