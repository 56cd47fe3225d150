using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault;

/// <summary>
/// Gives a sweep thread the priority its caller asked for, on Linux as its nice value too: Thread.Priority alone leaves
/// an unprivileged thread at nice 0 (docs/why/platform.md#workerprioritycs).
/// </summary>
internal static class WorkerPriority
{
    /// <summary>The nice value of <see cref="ThreadPriority.BelowNormal"/> workers on Linux.</summary>
    internal const int BelowNormalNice = 10;

    /// <summary>The nice value of <see cref="ThreadPriority.Lowest"/> workers on Linux.</summary>
    internal const int LowestNice = 19;

    /// <summary>Applies <paramref name="priority"/> to the calling thread; never throws (a refusal leaves it as it was).</summary>
    internal static void ApplyToCurrentThread(ThreadPriority priority)
    {
        if (priority == ThreadPriority.Normal)
        {
            return;
        }

        try
        {
            Thread.CurrentThread.Priority = priority;
            if (OperatingSystem.IsLinux() && priority < ThreadPriority.Normal)
            {
                _ = TrySetNice(priority == ThreadPriority.Lowest ? LowestNice : BelowNormalNice, out _); // a refusal is not an error: the sweep runs at the normal priority
            }
        }
#pragma warning disable CA1031 // A priority is a wish: whatever refuses it (a platform, a missing C library symbol), the sweep runs as it is.
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    /// <summary>
    /// Sets the calling thread's nice value (<c>setpriority(PRIO_PROCESS, 0)</c>: on Linux, the calling thread's own);
    /// false with the errno when refused.
    /// </summary>
    [SupportedOSPlatform("linux")]
    internal static bool TrySetNice(int nice, out int errno)
    {
        bool set = Interop.Libc.Setpriority(Interop.Libc.PRIO_PROCESS, 0, nice) == 0;
        errno = set ? 0 : Marshal.GetLastPInvokeError();
        return set;
    }
}
