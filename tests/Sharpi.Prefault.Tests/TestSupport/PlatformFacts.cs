
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

/// <summary>
/// A fact that runs on Linux with transparent huge pages enabled (<c>always</c> or <c>madvise</c>), where the library
/// gives the huge-page advice and makes staging views, and shows as skipped, with the reason, elsewhere.
/// </summary>
public sealed class HugePageFactAttribute : FactAttribute
{
    public HugePageFactAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Linux only: needs transparent huge pages, mincore and /proc.";
        }
        else if (!HugePageAdvice.IsThpEnabled(KernelFile.TryReadText(HugePageAdvice.EnabledPath)))
        {
            Skip = $"transparent huge pages are off ({HugePageAdvice.EnabledPath}): the library gives no huge-page advice and makes no staging views.";
        }
    }
}

/// <summary>
/// A fact that runs on Linux as root only (it makes device nodes, or runs a child as another user), and shows as
/// skipped, with the reason, elsewhere.
/// </summary>
public sealed class RootLinuxFactAttribute : FactAttribute
{
    public RootLinuxFactAttribute()
    {
        if (!OperatingSystem.IsLinux() || !Environment.IsPrivilegedProcess)
        {
            Skip = "Linux as root only: makes a device node, or runs the tool as another user (nobody).";
        }
    }
}

/// <summary>The theory form of <see cref="RootLinuxFactAttribute"/>.</summary>
public sealed class RootLinuxTheoryAttribute : TheoryAttribute
{
    public RootLinuxTheoryAttribute()
    {
        if (!OperatingSystem.IsLinux() || !Environment.IsPrivilegedProcess)
        {
            Skip = "Linux as root only: makes a device node, or runs the tool as another user (nobody).";
        }
    }
}
