using System.Globalization;
using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// Sets a kernel setting in sysfs (a disk's read_ahead_kb, the VM's page_reporting_order) for a run and puts the old
/// value back: on <see cref="Dispose"/> (normal end and
/// exceptions), on Ctrl+C and SIGTERM (<see cref="PosixSignalRegistration"/>, before the runtime's default action
/// ends the process), and on process exit. The value is the machine's, shared with every process on it.
/// </summary>
internal sealed class SysfsOverride : IDisposable
{
    private readonly string _path;
    private readonly int _original;
    private readonly PosixSignalRegistration[] _signals;
    private int _restored;

    private SysfsOverride(string path, int original)
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
    /// write it (not root, a read-only sysfs, no block device behind the file). It puts back the value it finds, or
    /// <paramref name="restoreTo"/> where the device's own value is not the one to keep (a scratch loop device, whose
    /// value attaching it changed).
    /// </summary>
    internal static SysfsOverride? TryCreate(BlockDevice device, out string? why, int? restoreTo = null)
    {
        if (device.Name is null || device.ReadAheadKb is not int original)
        {
            why = $"the file's filesystem ({device.FileSystem} on {device.Source}) has no block device whose read_ahead_kb the bench could set";
            return null;
        }

        return TryCreate(device.ReadAheadPath, restoreTo ?? original, out why);
    }

    /// <summary>An override of the integer setting at <paramref name="path"/>, or null with the reason where it may not be written.</summary>
    internal static SysfsOverride? TryCreate(string path, out string? why)
    {
        if (!int.TryParse(File.ReadAllText(path).Trim(), NumberStyles.Integer, CultureInfo.InvariantCulture, out int original))
        {
            why = $"{path} does not hold an integer";
            return null;
        }

        return TryCreate(path, original, out why);
    }

    private static SysfsOverride? TryCreate(string path, int original, out string? why)
    {
        try
        {
            using (File.Open(path, FileMode.Open, FileAccess.Write))
            {
            }
        }
        catch (Exception e) when (e is UnauthorizedAccessException or IOException)
        {
            why = $"{path} may not be written by this process ({e.Message.TrimEnd('.')}; run as root to compare values)";
            return null;
        }

        why = null;
        return new SysfsOverride(path, original);
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
        try
        {
            Restore();
            Console.Error.WriteLine($"{context.Signal}: restored {_path} to {_original}.");
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // A scratch device removed by its own handler first takes its setting with it; the others still go back.
            Console.Error.WriteLine($"{context.Signal}: could not restore {_path} to {_original}: {e.Message}");
        }
    }

    private void OnProcessExit(object? sender, EventArgs e)
    {
        try
        {
            Restore();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            Console.Error.WriteLine($"could not restore {_path} to {_original}: {ex.Message}");
        }
    }

    private void Restore()
    {
        if (Interlocked.Exchange(ref _restored, 1) == 0)
        {
            Write(_original);
        }
    }

    private void Write(int kilobytes) => File.WriteAllText(_path, kilobytes.ToString(CultureInfo.InvariantCulture));
}
