using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Locking;

/// <summary>
/// A fact that locks <c>Bytes</c> of memory: it runs on Linux as root (CAP_IPC_LOCK bypasses RLIMIT_MEMLOCK) or
/// under a soft RLIMIT_MEMLOCK that allows that much, and shows as skipped, with the reason, elsewhere.
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class LockableFactAttribute : FactAttribute
{
    public LockableFactAttribute(long bytes)
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Linux only: needs mlock and /proc.";
            return;
        }

        (ulong soft, _) = NativeTestMethods.GetMemlockLimit();
        if (!Environment.IsPrivilegedProcess && soft < (ulong)bytes)
        {
            Skip = $"locks {bytes >> 20} MiB: needs root (CAP_IPC_LOCK) or RLIMIT_MEMLOCK of at least that (soft limit is {soft} bytes)";
        }
    }
}
