using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Cli.Commands;

/// <summary>
/// The priority of <c>keep</c>'s one working thread: the lowest CPU priority a process may give itself (nice 19) and
/// the lowest best-effort I/O priority (level 7), so restoring pages yields to the engine and to other tenants.
/// </summary>
internal static class BackgroundPriority
{
    public const int Nice = 19;
    public const int IoLevel = 7;

    /// <summary>Lowers the calling thread; returns what could not be done, or null.</summary>
    public static string? LowerCurrentThread()
    {
        Thread.CurrentThread.Priority = ThreadPriority.Lowest;
        if (!OperatingSystem.IsLinux())
        {
            return null;
        }

        var refused = new List<string>();
        if (!WorkerPriority.TrySetNice(Nice, out int errno))
        {
            refused.Add($"nice {Nice}: {Marshal.GetPInvokeErrorMessage(errno)}");
        }

        long syscall = Interop.Libc.SYS_ioprio_set;
        int ioprio = (Interop.Libc.IOPRIO_CLASS_BE << Interop.Libc.IOPRIO_CLASS_SHIFT) | IoLevel;
        if (syscall < 0)
        {
            refused.Add($"I/O priority: no ioprio_set number known for {RuntimeInformation.ProcessArchitecture}");
        }
        else if (Interop.Libc.SyscallIoprioSet(syscall, Interop.Libc.IOPRIO_WHO_PROCESS, 0, ioprio) != 0)
        {
            refused.Add($"best-effort I/O level {IoLevel}: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
        }

        return refused.Count == 0 ? null : string.Join("; ", refused);
    }
}
