using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault;

/// <summary>
/// Gives a sweep thread the priority its caller asked for. <see cref="Thread.Priority"/> does nothing on Linux for
/// an unprivileged process (the thread's nice value stays 0), so a below-normal priority also raises the thread's own
/// nice value there with <c>setpriority(PRIO_PROCESS, 0)</c>, which on Linux sets the calling thread's alone (the nice
/// value is a thread's there) and needs no privilege (and cannot be undone without it: a thread that yields keeps
/// yielding until it ends). No <c>gettid</c>: glibc has had it only since 2.30, and a missing symbol would throw on a
/// sweep thread (RHEL 8 ships 2.28). Which thread gets which priority is <see cref="SweepThreads"/>'s.
/// </summary>
/// <remarks>
/// The workers keep the default I/O priority: a lower one (<c>ioprio_set</c>, idle class or best-effort 7) did not
/// help an init that reads while the background sweep runs. Measured with the workers patched to each class (2 GiB,
/// 2 cores, virtio disk under mq-deadline, bench <c>overlap --init-ms 200 --init-read 512M --repeat 3</c>, medians):
/// the init took 0.735 s with the default, 0.773 s idle and 0.756 s best-effort 7; time to first request 0.750,
/// 0.785 and 0.765 s. The disk's queue is deep enough that both readers' requests are dispatched at once, and the
/// init's cost is the cores it shares, which the nice value already yields.
/// </remarks>
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
