using System.Globalization;
using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// Sets a disk's read_ahead_kb for a run and puts the old value back: on <see cref="Dispose"/> (normal end and
/// exceptions), on Ctrl+C and SIGTERM (<see cref="PosixSignalRegistration"/>, before the runtime's default action
/// ends the process), and on process exit. The value is the disk's, shared with every process on the machine.
/// </summary>
internal sealed class ReadAheadOverride : IDisposable
{
    private readonly string _path;
    private readonly int _original;
    private readonly PosixSignalRegistration[] _signals;
    private int _restored;

    private ReadAheadOverride(string path, int original)
    {
        _path = path;
        _original = original;
        _signals =
        [
            PosixSignalRegistration.Create(PosixSignal.SIGINT, OnSignal),
            PosixSignalRegistration.Create(PosixSignal.SIGTERM, OnSignal),
            PosixSignalRegistration.Create(PosixSignal.SIGQUIT, OnSignal),
        ];
        AppDomain.CurrentDomain.ProcessExit += OnProcessExit;
    }

    internal int Original => _original;

    /// <summary>
    /// An override of <paramref name="device"/>'s read_ahead_kb, or null with the reason where this process may not
    /// write it (not root, a read-only sysfs, no block device behind the file).
    /// </summary>
    internal static ReadAheadOverride? TryCreate(BlockDevice device, out string? why)
    {
        if (device.Name is null || device.ReadAheadKb is not int original)
        {
            why = $"the file's filesystem ({device.FileSystem} on {device.Source}) has no block device whose read_ahead_kb the bench could set";
            return null;
        }

        try
        {
            using (File.Open(device.ReadAheadPath, FileMode.Open, FileAccess.Write))
            {
            }
        }
        catch (Exception e) when (e is UnauthorizedAccessException or IOException)
        {
            why = $"{device.ReadAheadPath} may not be written by this process ({e.Message.TrimEnd('.')}; run as root to compare values)";
            return null;
        }

        why = null;
        return new ReadAheadOverride(device.ReadAheadPath, original);
    }

    /// <summary>Sets the value and checks that the kernel took it.</summary>
    internal void Set(int kilobytes)
    {
        Write(kilobytes);
        string now = File.ReadAllText(_path).Trim();
        if (now != kilobytes.ToString(CultureInfo.InvariantCulture))
        {
            throw new BenchException($"Wrote {kilobytes} to {_path}, but it reads back {now}.");
        }
    }

    public void Dispose()
    {
        Restore();
        AppDomain.CurrentDomain.ProcessExit -= OnProcessExit;
        foreach (PosixSignalRegistration signal in _signals)
        {
            signal.Dispose();
        }
    }

    private void OnSignal(PosixSignalContext context)
    {
        Restore();
        Console.Error.WriteLine($"{context.Signal}: restored {_path} to {_original}.");
    }

    private void OnProcessExit(object? sender, EventArgs e) => Restore();

    private void Restore()
    {
        if (Interlocked.Exchange(ref _restored, 1) == 0)
        {
            Write(_original);
        }
    }

    private void Write(int kilobytes) => File.WriteAllText(_path, kilobytes.ToString(CultureInfo.InvariantCulture));
}
