using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>RLIMIT_MEMLOCK: the soft and hard limits in bytes, null for unlimited.</summary>
internal readonly record struct MemlockLimit(ulong? Soft, ulong? Hard);

/// <summary>How the OS refused a lock.</summary>
internal enum LockRefusal
{
    /// <summary>ENOMEM (or EAGAIN on macOS) while RLIMIT_MEMLOCK applies: the lock would pass it.</summary>
    OverLimit,

    /// <summary>EPERM: the process may not lock at all (limit 0 and no CAP_IPC_LOCK).</summary>
    NotPermitted,

    /// <summary>Any other error.</summary>
    Other,

    /// <summary>ENOMEM: part of the range is not mapped.</summary>
    NotMapped,

    /// <summary>ENOMEM: part of the range is mapped PROT_NONE (mlock faults in only readable pages).</summary>
    NoAccess,

    /// <summary>ENOMEM: part of the range lies past the end of its (truncated) file.</summary>
    PastEndOfFile,

    /// <summary>EAGAIN, or ENOMEM where RLIMIT_MEMLOCK does not apply: memory (the machine's or the cgroup's) is short.</summary>
    OutOfMemory,
}

/// <summary>
/// The messages of a refused lock, naming the limit, its values and how to raise it: the operator reading the log did
/// not write the call.
/// </summary>
internal static class LockLimit
{
    /// <summary>
    /// The message of a refused mlock: what refused it, the cause, and what to do. <paramref name="limit"/> is null where
    /// unread; <paramref name="detail"/> is what the mapping check found.
    /// </summary>
    internal static string UnixMessage(LockRefusal kind, string call, string error, long bytes, MemlockLimit? limit, bool linux, string? detail = null)
    {
        string values = limit is MemlockLimit l
            ? $"RLIMIT_MEMLOCK is soft {Format(l.Soft)}, hard {Format(l.Hard)}"
            : "RLIMIT_MEMLOCK could not be read";
        string raise = linux
            ? "Raise the limit for the engine's process: `ulimit -l unlimited` (or a size in KiB) in the shell that starts it, "
              + "`LimitMEMLOCK=infinity` in its systemd unit, `--ulimit memlock=-1:-1` with docker run, "
              + "or grant it CAP_IPC_LOCK, which bypasses the limit."
            : "Raise the limit for the engine's process: `ulimit -l unlimited` in the shell that starts it "
              + "(or `launchctl limit memlock` for launchd jobs).";
        string what = kind switch
        {
            LockRefusal.OverLimit => $"locking {Sizes.Format(bytes)} more would pass the locked-memory limit: {values}. {raise}",
            LockRefusal.NotPermitted => $"this process may not lock memory: {values}, and without CAP_IPC_LOCK a limit of 0 forbids locking. {raise}",
            LockRefusal.NotMapped => $"the range is not (wholly) mapped{Detail(detail)}. Lock only ranges of a live mapping; the locked-memory limit is not the cause.",
            LockRefusal.NoAccess => $"part of the range is mapped PROT_NONE{Detail(detail)}, and the kernel locks only pages it may read. "
                + "Lock readable mappings only; the locked-memory limit is not the cause.",
            LockRefusal.PastEndOfFile => $"part of the range lies past the end of its file{Detail(detail)}: the file was truncated after it was mapped, "
                + "and pages past its end cannot be read, so they cannot be locked. Re-map the file at its current length; "
                + "the locked-memory limit is not the cause.",
            LockRefusal.OutOfMemory => $"the kernel could not bring {Sizes.Format(bytes)} in to lock it: memory is short "
                + $"(the machine's, or the cgroup's limit){Detail(detail)}. Lock less, or free memory first.",
            _ => $"{values}.",
        };
        return $"{call} refused, {error}: {what} The pages stay mapped and usable, only unlocked.";
    }

    private static string Detail(string? detail) => string.IsNullOrEmpty(detail) ? string.Empty : $" ({detail})";

    /// <summary>The message of a refused VirtualLock: the error, the cause where known, and what to do.</summary>
    internal static string WindowsMessage(PlatformError error, long bytes)
    {
        string what = error.Code == Interop.Kernel32.ERROR_WORKING_SET_QUOTA
            ? $"locking {Sizes.Format(bytes)} more would pass the process's minimum working set size. "
              + "Raise it with SetProcessWorkingSetSizeEx (minimum and maximum above the bytes to lock) before locking."
            : "the pages could not be locked.";
        return $"{error.Call} refused, {error.Describe()}: {what} The pages stay mapped and usable, only unlocked.";
    }

    /// <summary>"8388608 bytes (8.00 MiB)", or "unlimited".</summary>
    internal static string Format(ulong? bytes) => bytes is ulong b
        ? string.Create(CultureInfo.InvariantCulture, $"{b} bytes ({b / (double)(1L << 20):F2} MiB)")
        : "unlimited";
}
