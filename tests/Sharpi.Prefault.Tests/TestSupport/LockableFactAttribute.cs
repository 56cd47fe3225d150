using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A fact that locks <c>Bytes</c> of memory: it runs on Linux as root (CAP_IPC_LOCK bypasses RLIMIT_MEMLOCK) or
/// under a soft RLIMIT_MEMLOCK that allows that much, and shows as skipped, with the reason, elsewhere.
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class LockableFactAttribute : FactAttribute
{
    public LockableFactAttribute(long bytes)
    {
        Skip = WhyNotLockable(bytes);
    }

    /// <summary>Why this process cannot lock <paramref name="bytes"/>, or null when it can (a child it starts inherits both the limit and root's capability).</summary>
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
}
