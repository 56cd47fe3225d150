using System.Globalization;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics.X86;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// Every condition a test may need from the machine, for <see cref="ConditionalFactAttribute"/> and
/// <see cref="ConditionalTheoryAttribute"/>: each property is the reason the test skips (what is missing), or null
/// where the machine has it. A test that needs several names them all, in the order they are checked.
/// </summary>
/// <remarks>
/// Partial: a test project adds what only it can check (the library's tests: LLamaSharp, swap; the tool's: pid
/// namespaces; the bench's: DAMON).
/// </remarks>
public static partial class Requirements
{
    private const long MiB = 1024 * 1024;
    private const long Page = 4096;

    // Platform.

    /// <summary>Linux: mincore, posix_fadvise and /proc.</summary>
    public static string? Linux => OperatingSystem.IsLinux() ? null : "Linux only: needs mincore, posix_fadvise and /proc.";

    /// <summary>Linux as root: makes a device node, or runs the tool as another user (nobody).</summary>
    public static string? LinuxRoot =>
        OperatingSystem.IsLinux() && Environment.IsPrivilegedProcess ? null : "Linux as root only: makes a device node, or runs the tool as another user (nobody).";

    /// <summary>An x86 process on Linux whose /proc/cpuinfo lists the CPU's flags.</summary>
    public static string? X86Linux =>
        !OperatingSystem.IsLinux() || !X86Base.IsSupported
            ? $"needs an x86 process on Linux (this is {RuntimeInformation.ProcessArchitecture} on {RuntimeInformation.OSDescription})"
            : KernelFlags() is null ? "/proc/cpuinfo has no flags line (an x86 process under a translator?)" : null;

    /// <summary>A CPU with no CPUID (not x86).</summary>
    public static string? NonX86 =>
        X86Base.IsSupported ? $"x86 ({RuntimeInformation.ProcessArchitecture}) has the hypervisor bit: see Leaf1Ecx_IsTheRegisterTheKernelReadItsFlagsFrom" : null;

    /// <summary>The first CPU's flags as /proc/cpuinfo lists them; null where it lists none.</summary>
    internal static HashSet<string>? KernelFlags()
    {
        string? line = File.Exists("/proc/cpuinfo") ? File.ReadLines("/proc/cpuinfo").FirstOrDefault(static l => l.StartsWith("flags", StringComparison.Ordinal)) : null;
        return line is null ? null : [.. line[(line.IndexOf(':', StringComparison.Ordinal) + 1)..].Split(' ', StringSplitOptions.RemoveEmptyEntries)];
    }

    // Kernel features.

    /// <summary>cachestat(2), Linux 6.5 or later.</summary>
    public static string? Cachestat =>
        !OperatingSystem.IsLinux() || Environment.OSVersion.Version < new Version(6, 5) ? $"needs cachestat, Linux 6.5 or later (this is {Environment.OSVersion})" : null;

    /// <summary>The PROCMAP_QUERY ioctl of /proc/self/maps (Linux 6.11+).</summary>
    public static string? ProcmapQuery =>
        !OperatingSystem.IsLinux() ? "Linux only: PROCMAP_QUERY is an ioctl of /proc/self/maps."
        : !MappingQuery.IsQuerySupported ? $"needs PROCMAP_QUERY (Linux 6.11+); this kernel is {Environment.OSVersion.Version}."
        : null;

    /// <summary>Transparent huge pages on (<c>always</c> or <c>madvise</c>): the library gives the huge-page advice and makes staging views.</summary>
    public static string? HugePages =>
        !OperatingSystem.IsLinux() ? "Linux only: needs transparent huge pages, mincore and /proc."
        : !HugePageAdvice.IsThpEnabled(KernelFile.TryReadText(HugePageAdvice.EnabledPath))
            ? $"transparent huge pages are off ({HugePageAdvice.EnabledPath}): the library gives no huge-page advice and makes no staging views."
        : null;

    /// <summary>
    /// A run whose first guess is the huge-page advice (<see cref="MechanismChoice.Order"/>): <see cref="HugePages"/>,
    /// except on a KVM host that reports free pages, where the static order tries small folios first.
    /// </summary>
    public static string? HugePageRun =>
        HugePages ?? (FreePageReporting.IsActive && Hypervisor.ReadSignature() is { } signature && signature.StartsWith("KVMKVMKVM", StringComparison.Ordinal)
            ? "this KVM guest reports free pages to its host: a small run's first guess is small folios, not the huge-page advice (MechanismChoiceTests cover the order)."
            : null);

    /// <summary>A machine that reports free pages to its host (a microVM).</summary>
    public static string? FreePageReportingHost =>
        FreePageReporting.IsActive ? null : "this machine does not report free pages to a host (no virtio balloon with VIRTIO_BALLOON_F_REPORTING, or page_reporting_order above the largest order).";

    /// <summary>The kernel's BTF file, which opens and refuses a shared mapping.</summary>
    public static string? BtfFile => SystemFile("/sys/kernel/btf/vmlinux", "a file that opens and refuses a shared mapping");

    // Privileges.

    /// <summary>Root (CAP_SYS_ADMIN and the rest): writes a kernel parameter, mounts, or changes another user's files.</summary>
    public static string? Root => Environment.IsPrivilegedProcess ? null : "needs root";

    /// <summary>A tmpfs of the test's own: Linux as root.</summary>
    public static string? Tmpfs =>
        !OperatingSystem.IsLinux() ? "Linux only: mounts a tmpfs"
        : !Environment.IsPrivilegedProcess ? "needs root: mounts a small tmpfs of its own"
        : null;

    /// <summary>A child run as the user nobody (<see cref="TestSupport.Unprivileged"/>).</summary>
    public static string? Unprivileged => TestSupport.Unprivileged.WhyUnavailable;

    // Programs of the system.

    /// <summary>util-linux's <c>script</c> on the PATH, for a pseudo-terminal.</summary>
    public static string? ScriptCommand => Command("script");

    /// <summary>util-linux's <c>setpriv</c> on the PATH, to drop a capability.</summary>
    public static string? SetprivCommand => Command("setpriv");

    // Seccomp.

    /// <summary>A real seccomp filter in a child (<see cref="SeccompFilter"/>): Linux, an architecture the filter has numbers for.</summary>
    public static string? Seccomp => !OperatingSystem.IsLinux() ? "Linux only: seccomp filters" : SeccompFilter.Unsupported;

    /// <summary><see cref="Seccomp"/>, and the child's /proc/PID/maps masked by a bind mount: root and util-linux's unshare.</summary>
    public static string? SeccompMaskingProcMaps =>
        Seccomp
        ?? (!Environment.IsPrivilegedProcess ? "needs root: masks the child's /proc/PID/maps with a bind mount in a mount namespace of its own"
            : !File.Exists("/usr/bin/unshare") && !File.Exists("/bin/unshare") ? "needs unshare(1) (util-linux) to give the child a mount namespace, and there is none"
            : null);

    /// <summary><see cref="Seccomp"/> refusing cachestat, told from a kernel without it: also Linux 6.5 or later.</summary>
    public static string? SeccompCachestat =>
        Seccomp
        ?? (Environment.OSVersion.Version < new Version(6, 5)
            ? $"needs cachestat, Linux 6.5 or later, to tell a filter's EPERM from a kernel without it (this is {Environment.OSVersion})"
            : null);

    // Cgroups, filesystems and reserved memory.

    /// <summary>A real memory cgroup of the test's own.</summary>
    public static string? MemoryCgroup => TestSupport.MemoryCgroup.WhyUnavailable;

    /// <summary>A real pids cgroup of the test's own.</summary>
    public static string? PidsCgroup => TestSupport.PidsCgroup.WhyUnavailable;

    /// <summary>A real cgroup throttling reads from the temp folder's disk.</summary>
    public static string? IoThrottle => IoThrottleCgroup.WhyUnavailable;

    /// <summary>A btrfs filesystem on a loop device (<see cref="LoopFilesystem"/>).</summary>
    public static string? BtrfsLoop => LoopFilesystem.WhyUnavailable("btrfs");

    /// <summary>Huge pages the test may reserve (Linux, root, a hugetlb pool).</summary>
    public static string? Hugetlb => HugetlbPages.Unavailable is string why ? $"needs huge pages the test may reserve: {why}" : null;

    // Locking: root (CAP_IPC_LOCK bypasses RLIMIT_MEMLOCK) or a soft RLIMIT_MEMLOCK that allows the bytes (a child inherits both).

    /// <summary>mlock of 64 KiB.</summary>
    public static string? Lockable64KiB => WhyNotLockable(64 * 1024);

    /// <summary>mlock of 1 MiB.</summary>
    public static string? Lockable1MiB => WhyNotLockable(MiB);

    /// <summary>mlock of 2 MiB.</summary>
    public static string? Lockable2MiB => WhyNotLockable(2 * MiB);

    /// <summary>mlock of 12 MiB.</summary>
    public static string? Lockable12MiB => WhyNotLockable(12 * MiB);

    /// <summary>mlock of 16 MiB.</summary>
    public static string? Lockable16MiB => WhyNotLockable(16 * MiB);

    /// <summary>mlock of 32 MiB.</summary>
    public static string? Lockable32MiB => WhyNotLockable(32 * MiB);

    /// <summary>mlock of 64 MiB.</summary>
    public static string? Lockable64MiB => WhyNotLockable(64 * MiB);

    /// <summary>mlock of 35,000 pages.</summary>
    public static string? Lockable35000Pages => WhyNotLockable(35_000 * Page);

    /// <summary>mlock of 70,000 pages.</summary>
    public static string? Lockable70000Pages => WhyNotLockable(70_000 * Page);

    /// <summary>mlock of 100,000 pages.</summary>
    public static string? Lockable100000Pages => WhyNotLockable(100_000 * Page);

    /// <summary>Pins of 4 MiB of a file (<see cref="PinnedPages"/>).</summary>
    public static string? Pinnable4MiB => PinnedPages.WhyUnavailable(4 * MiB);

    /// <summary>Pins of 16 MiB of a file (<see cref="PinnedPages"/>).</summary>
    public static string? Pinnable16MiB => PinnedPages.WhyUnavailable(16 * MiB);

    /// <summary>vm.max_map_count below 70,000, so that a child making 70,000 mappings passes it.</summary>
    public static string? MapCountBelow70000 => MapCountBelow(70_000);

    /// <summary>Why this process cannot lock <paramref name="bytes"/>, or null when it can.</summary>
    internal static string? WhyNotLockable(long bytes)
    {
        if (!OperatingSystem.IsLinux())
        {
            return "Linux only: needs mlock and /proc.";
        }

        (ulong soft, _) = NativeTestMethods.GetMemlockLimit();
        return !Environment.IsPrivilegedProcess && soft < (ulong)bytes
            ? $"locks {bytes >> 20} MiB: needs root (CAP_IPC_LOCK) or RLIMIT_MEMLOCK of at least that (soft limit is {soft} bytes)"
            : null;
    }

    private static string? MapCountBelow(int mappings) =>
        MappingRoom.ReadLimit() is not long limit || limit >= mappings
            ? $"needs vm.max_map_count below {mappings} to pass it (it is {MappingRoom.ReadLimit()?.ToString(CultureInfo.InvariantCulture) ?? "unknown"})"
            : null;

    private static string? Command(string command) =>
        !OperatingSystem.IsLinux() ? $"Linux only: runs {command}(1) and needs /proc."
        : (Environment.GetEnvironmentVariable("PATH") ?? "/usr/bin:/bin").Split(':', StringSplitOptions.RemoveEmptyEntries).Any(directory => File.Exists(Path.Combine(directory, command)))
            ? null
            : $"needs {command}(1) (util-linux) on the PATH, and there is none";

    private static string? SystemFile(string path, string why) =>
        !OperatingSystem.IsLinux() ? $"Linux only: needs {path} ({why})."
        : File.Exists(path) ? null
        : $"needs {path} ({why}), and this kernel has none";
}
