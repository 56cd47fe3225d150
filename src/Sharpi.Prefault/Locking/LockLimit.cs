using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>RLIMIT_MEMLOCK: the soft and hard limits in bytes, null for unlimited.</summary>
internal readonly record struct MemlockLimit(ulong? Soft, ulong? Hard);

/// <summary>How the OS refused a lock.</summary>
internal enum LockRefusal
{
    /// <summary>ENOMEM or EAGAIN: the lock would pass RLIMIT_MEMLOCK.</summary>
    OverLimit,

    /// <summary>EPERM: the process may not lock at all (limit 0 and no CAP_IPC_LOCK).</summary>
    NotPermitted,

    /// <summary>Any other error.</summary>
    Other,
}

/// <summary>
/// The messages of a refused lock, as pure functions of the error and the limit: they name the limit, its
/// values and the ways to raise it, because the operator reading the log is not the engineer who wrote the call.
/// </summary>
internal static class LockLimit
{
    internal static string UnixMessage(LockRefusal kind, string call, string error, long bytes, MemlockLimit? limit, bool linux)
    {
        string values = limit is MemlockLimit l
            ? $"RLIMIT_MEMLOCK is soft {Format(l.Soft)}, hard {Format(l.Hard)}"
            : "RLIMIT_MEMLOCK could not be read";
        string what = kind switch
        {
            LockRefusal.OverLimit => $"locking {Sizes.Format(bytes)} more would pass the locked-memory limit: {values}.",
            LockRefusal.NotPermitted => $"this process may not lock memory: {values}, and without CAP_IPC_LOCK a limit of 0 forbids locking.",
            _ => $"{values}.",
        };
        string raise = linux
            ? "Raise the limit for the engine's process: `ulimit -l unlimited` (or a size in KiB) in the shell that starts it, "
              + "`LimitMEMLOCK=infinity` in its systemd unit, `--ulimit memlock=-1:-1` with docker run, "
              + "or grant it CAP_IPC_LOCK, which bypasses the limit."
            : "Raise the limit for the engine's process: `ulimit -l unlimited` in the shell that starts it "
              + "(or `launchctl limit memlock` for launchd jobs).";
        return $"{call} refused, {error}: {what} {raise} The pages stay mapped and usable, only unlocked.";
    }

    internal static string WindowsMessage(int error, long bytes)
    {
        string what = error == Interop.Kernel32.ERROR_WORKING_SET_QUOTA
            ? $"locking {Sizes.Format(bytes)} more would pass the process's minimum working set size. "
              + "Raise it with SetProcessWorkingSetSizeEx (minimum and maximum above the bytes to lock) before locking."
            : "the pages could not be locked.";
        return $"VirtualLock refused, {Errno.Describe(error)}: {what} The pages stay mapped and usable, only unlocked.";
    }

    /// <summary>"8388608 bytes (8.00 MiB)", or "unlimited".</summary>
    internal static string Format(ulong? bytes) => bytes is ulong b
        ? string.Create(CultureInfo.InvariantCulture, $"{b} bytes ({b / (double)(1L << 20):F2} MiB)")
        : "unlimited";
}
