using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Cli;

/// <summary>
/// Turns the first SIGINT or SIGTERM into a cancelled token, so a command ends its own way (the sweep stops between
/// chunks and prints what it did; <c>lock</c> unlocks), and the exit code says which signal ended it (130 or 143, as a
/// shell reports a process killed by it).
/// </summary>
internal sealed class Interruption : IDisposable
{
    private readonly CancellationTokenSource _cancel = new();
    private readonly List<PosixSignalRegistration> _registrations = [];
    private int _signal;

    /// <param name="handle">
    /// False for commands with nothing to finish (resident, evict, tensors): the signals keep their default, which ends the
    /// process at once with 130 or 143, rather than wait for a command that would not look at the token.
    /// </param>
    public Interruption(bool handle)
    {
        if (handle && (OperatingSystem.IsWindows() || OperatingSystem.IsLinux() || OperatingSystem.IsMacOS() || OperatingSystem.IsFreeBSD()))
        {
            _registrations.Add(PosixSignalRegistration.Create(PosixSignal.SIGINT, OnSignal));
            _registrations.Add(PosixSignalRegistration.Create(PosixSignal.SIGTERM, OnSignal));
        }
    }

    public CancellationToken Token => _cancel.Token;

    /// <summary>
    /// True when this process started with SIGINT ignored, which the runtime keeps however the signal is registered:
    /// POSIX has a non-interactive shell start its background jobs so (<c>sharpi-prefault lock FILE &amp;</c> in a
    /// script).
    /// </summary>
    public static bool IsSigintIgnored()
    {
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }

        string? status = KernelFile.TryReadText("/proc/self/status");
        foreach (string line in (status ?? string.Empty).Split('\n'))
        {
            if (line.StartsWith("SigIgn:", StringComparison.Ordinal))
            {
                return ulong.TryParse(line.AsSpan("SigIgn:".Length).Trim(), System.Globalization.NumberStyles.HexNumber, System.Globalization.CultureInfo.InvariantCulture, out ulong mask)
                    && (mask & (1UL << (SigInt - 1))) != 0;
            }
        }

        return false;
    }

    private const int SigInt = 2; // signal N is bit N-1 of /proc/self/status's SigIgn mask

    /// <summary>The exit code for a command that returned <paramref name="code"/>: an interrupted one says which signal ended it.</summary>
    public int ExitCode(int code) =>
        code == ExitCodes.Interrupted && Volatile.Read(ref _signal) == (int)PosixSignal.SIGTERM ? ExitCodes.Terminated : code;

    private void OnSignal(PosixSignalContext context)
    {
        if (Interlocked.CompareExchange(ref _signal, (int)context.Signal, 0) != 0)
        {
            return; // the second signal: let it kill the process
        }

        context.Cancel = true;
        _cancel.Cancel();
    }

    public void Dispose()
    {
        foreach (PosixSignalRegistration registration in _registrations)
        {
            registration.Dispose();
        }

        _cancel.Dispose();
    }
}
