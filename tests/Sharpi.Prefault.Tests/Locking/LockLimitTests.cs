namespace Sharpi.Prefault.Tests.Locking;

/// <summary>The refused-lock messages as pure functions: what operators read in the log.</summary>
public sealed class LockLimitTests
{
    [Fact]
    public void UnixMessage_OverTheLimit_NamesTheLimitBothValuesAndEveryWayToRaiseIt()
    {
        string message = LockLimit.UnixMessage(LockRefusal.OverLimit, "mlock", "errno 12 (Cannot allocate memory)", 64L << 20,
            new MemlockLimit(8UL << 20, 16UL << 20), linux: true);

        Assert.Contains("mlock refused, errno 12", message, StringComparison.Ordinal);
        Assert.Contains("locking 64.00 MiB more", message, StringComparison.Ordinal);
        Assert.Contains("RLIMIT_MEMLOCK is soft 8388608 bytes (8.00 MiB), hard 16777216 bytes (16.00 MiB)", message, StringComparison.Ordinal);
        Assert.Contains("ulimit -l", message, StringComparison.Ordinal);
        Assert.Contains("LimitMEMLOCK=infinity", message, StringComparison.Ordinal);
        Assert.Contains("--ulimit memlock=", message, StringComparison.Ordinal);
        Assert.Contains("CAP_IPC_LOCK", message, StringComparison.Ordinal);
        Assert.Contains("unlocked", message, StringComparison.Ordinal);
    }

    [Fact]
    public void UnixMessage_NotPermitted_SaysALimitOfZeroForbidsLocking()
    {
        string message = LockLimit.UnixMessage(LockRefusal.NotPermitted, "mlock", "errno 1 (Operation not permitted)", 4096,
            new MemlockLimit(0, null), linux: true);

        Assert.Contains("soft 0 bytes (0.00 MiB), hard unlimited", message, StringComparison.Ordinal);
        Assert.Contains("a limit of 0 forbids locking", message, StringComparison.Ordinal);
    }

    [Fact]
    public void UnixMessage_OnMacOS_PointsAtUlimitAndLaunchctl_NotSystemd()
    {
        string message = LockLimit.UnixMessage(LockRefusal.OverLimit, "mlock", "errno 35", 4096, null, linux: false);

        Assert.Contains("RLIMIT_MEMLOCK could not be read", message, StringComparison.Ordinal);
        Assert.Contains("launchctl limit memlock", message, StringComparison.Ordinal);
        Assert.DoesNotContain("LimitMEMLOCK", message, StringComparison.Ordinal);
    }

    [Fact]
    public void WindowsMessage_ForTheWorkingSetQuota_SaysHowToRaiseTheMinimumWorkingSet()
    {
        string message = LockLimit.WindowsMessage(PlatformError.FromWin32("VirtualLock", 1453), 64L << 20);

        Assert.Contains("SetProcessWorkingSetSizeEx", message, StringComparison.Ordinal);
        Assert.Contains("64.00 MiB", message, StringComparison.Ordinal);
    }
}
