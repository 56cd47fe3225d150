using System.Runtime.InteropServices;
using System.Runtime.Intrinsics.X86;

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
/// A fact about a run whose own choice gives the huge-page advice (and makes staging views): Linux with THP on, on a
/// machine that does not report free pages to a host (there the library withholds the advice, see
/// <see cref="FreePageReporting"/>, and reads in windows); skipped, with the reason, elsewhere. The advice's own
/// mechanics are tested through <see cref="FileStaging.Prepare"/>, which takes the reporting as an argument.
/// </summary>
public sealed class HugePageRunFactAttribute : FactAttribute
{
    public HugePageRunFactAttribute()
    {
        if (new HugePageFactAttribute().Skip is string skip)
        {
            Skip = skip;
        }
        else if (FreePageReporting.IsActive)
        {
            Skip = "this VM reports free pages to its host (virtio-balloon free page reporting): a run withholds the huge-page advice and reads in windows (FileStagingTests cover the advice through Prepare).";
        }
    }
}

/// <summary>A fact for a machine that reports free pages to its host (a microVM); skipped, with the reason, elsewhere.</summary>
public sealed class FreePageReportingFactAttribute : FactAttribute
{
    public FreePageReportingFactAttribute()
    {
        if (!FreePageReporting.IsActive)
        {
            Skip = "this machine does not report free pages to a host (no virtio balloon with VIRTIO_BALLOON_F_REPORTING, or page_reporting_order above the largest order).";
        }
    }
}

/// <summary>A <see cref="FreePageReportingFactAttribute"/> that also needs transparent huge pages on: it looks at the advice kept there.</summary>
public sealed class FreePageReportingHugePageFactAttribute : FactAttribute
{
    public FreePageReportingHugePageFactAttribute()
    {
        if (!FreePageReporting.IsActive)
        {
            Skip = "this machine does not report free pages to a host (no virtio balloon with VIRTIO_BALLOON_F_REPORTING, or page_reporting_order above the largest order).";
        }
        else if (!HugePageAdvice.IsThpEnabled(KernelFile.TryReadText(HugePageAdvice.EnabledPath)))
        {
            Skip = $"transparent huge pages are off ({HugePageAdvice.EnabledPath}): the library gives no huge-page advice to keep.";
        }
    }
}

/// <summary>A <see cref="FreePageReportingFactAttribute"/> that also needs root: it changes <c>page_reporting_order</c> (and puts it back).</summary>
public sealed class RootFreePageReportingFactAttribute : FactAttribute
{
    public RootFreePageReportingFactAttribute()
    {
        if (!FreePageReporting.IsActive)
        {
            Skip = "this machine does not report free pages to a host (no virtio balloon with VIRTIO_BALLOON_F_REPORTING, or page_reporting_order above the largest order).";
        }
        else if (!Environment.IsPrivilegedProcess)
        {
            Skip = "root only: writes /sys/module/page_reporting/parameters/page_reporting_order (and restores it).";
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

/// <summary>A fact for an x86 process on Linux whose /proc/cpuinfo lists the CPU's flags; skipped, with the reason, elsewhere.</summary>
public sealed class X86LinuxFactAttribute : FactAttribute
{
    public X86LinuxFactAttribute()
    {
        if (!OperatingSystem.IsLinux() || !X86Base.IsSupported)
        {
            Skip = $"needs an x86 process on Linux (this is {RuntimeInformation.ProcessArchitecture} on {RuntimeInformation.OSDescription})";
        }
        else if (KernelFlags() is null)
        {
            Skip = "/proc/cpuinfo has no flags line (an x86 process under a translator?)";
        }
    }

    /// <summary>The first CPU's flags as /proc/cpuinfo lists them; null where it lists none.</summary>
    internal static HashSet<string>? KernelFlags()
    {
        string? line = File.Exists("/proc/cpuinfo") ? File.ReadLines("/proc/cpuinfo").FirstOrDefault(static l => l.StartsWith("flags", StringComparison.Ordinal)) : null;
        return line is null ? null : [.. line[(line.IndexOf(':', StringComparison.Ordinal) + 1)..].Split(' ', StringSplitOptions.RemoveEmptyEntries)];
    }
}

/// <summary>A fact for a process on a CPU with no CPUID (not x86); skipped, with the reason, on x86.</summary>
public sealed class NonX86FactAttribute : FactAttribute
{
    public NonX86FactAttribute()
    {
        if (X86Base.IsSupported)
        {
            Skip = $"x86 ({RuntimeInformation.ProcessArchitecture}) has the hypervisor bit: see Leaf1Ecx_IsTheRegisterTheKernelReadItsFlagsFrom";
        }
    }
}
