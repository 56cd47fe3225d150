using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// How a signal handler that must take something away under the running rows ends the process: a scratch device's
/// filesystem unmounted lazily makes the next open of its file fail, and .NET's own SIGTERM shutdown lets the main
/// thread run on, so such an exception could end the process half-way through the clean-up. The handler marks the
/// process as stopping (the commands then park an exception instead of throwing it), removes what it must, and
/// exits itself with 128 + the signal's number, which runs the other settings' process-exit restores.
/// </summary>
internal static class SignalExit
{
    private static int s_stopping;

    /// <summary>True once a handler has begun to remove something: any exception on the main thread is its doing.</summary>
    internal static bool IsStopping => Volatile.Read(ref s_stopping) != 0;

    internal static void Begin() => Interlocked.Exchange(ref s_stopping, 1);

    /// <summary>Exits as the shell reports a death by <paramref name="signal"/> (130 for SIGINT, 143 for SIGTERM).</summary>
    internal static void Exit(PosixSignal signal) => Environment.Exit(128 + signal switch
    {
        PosixSignal.SIGINT => 2,
        PosixSignal.SIGQUIT => 3,
        PosixSignal.SIGTERM => 15,
        _ => 1,
    });

    /// <summary>Blocks the main thread for good while a handler removes what it made and exits the process.</summary>
    internal static void Park() => Thread.Sleep(Timeout.Infinite);
}
