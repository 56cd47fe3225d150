using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault;

/// <summary>
/// Gives a sweep thread its caller's priority, on Linux as its nice value too: Thread.Priority alone leaves an
/// unprivileged thread at nice 0.
/// </summary>
internal static class WorkerPriority
{
    /// <summary>Nice of <see cref="ThreadPriority.BelowNormal"/> workers on Linux.</summary>
    internal const int BelowNormalNice = 10;

    /// <summary>Nice of <see cref="ThreadPriority.Lowest"/> workers on Linux.</summary>
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
                _ = TrySetNice(priority == ThreadPriority.Lowest ? LowestNice : BelowNormalNice, out _); // refused: normal priority
            }
        }
#pragma warning disable CA1031 // A priority is a wish: whatever refuses it, the sweep runs as it is.
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    /// <summary>Sets the calling thread's nice value; false with the errno when refused.</summary>
    [SupportedOSPlatform("linux")]
    internal static bool TrySetNice(int nice, out int errno)
    {
        bool set = Interop.Libc.Setpriority(Interop.Libc.PRIO_PROCESS, 0, nice) == 0;
        errno = set ? 0 : Marshal.GetLastPInvokeError();
        return set;
    }
}
