namespace Sharpi.Prefault;

/// <summary>On Linux also a nice value: Thread.Priority alone leaves an unprivileged thread at nice 0.</summary>
internal static class WorkerPriority
{
    internal const int BelowNormalNice = 10;

    internal const int LowestNice = 19;

    /// <summary>Never throws: a refusal leaves the thread as it was.</summary>
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
                _ = TrySetNice(priority == ThreadPriority.Lowest ? LowestNice : BelowNormalNice, out _);
            }
        }
#pragma warning disable CA1031 // A priority is a wish: whatever refuses it, the sweep runs as it is.
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    /// <summary>The calling thread's alone, on Linux; false with the errno when refused.</summary>
    [SupportedOSPlatform("linux")]
    internal static bool TrySetNice(int nice, out int errno)
    {
        bool set = Interop.Libc.Setpriority(Interop.Libc.PRIO_PROCESS, 0, nice) == 0;
        errno = set ? 0 : Marshal.GetLastPInvokeError();
        return set;
    }
}
