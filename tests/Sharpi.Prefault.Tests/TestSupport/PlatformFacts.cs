
namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>A fact that runs on Linux only and shows as skipped, with the reason, elsewhere.</summary>
public sealed class LinuxFactAttribute : FactAttribute
{
    public LinuxFactAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Linux only: needs mincore, posix_fadvise and /proc.";
        }
    }
}

/// <summary>A theory that runs on Linux only and shows as skipped, with the reason, elsewhere.</summary>
public sealed class LinuxTheoryAttribute : TheoryAttribute
{
    public LinuxTheoryAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Linux only: needs mincore, posix_fadvise and /proc.";
        }
    }
}
