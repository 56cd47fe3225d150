using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// A block device the bench makes for a <c>--device</c> pass and always removes: a loop device over an image file,
/// on a tmpfs it mounts (<c>ram-*</c>: storage faster than one core can fault, as NVMe drives at 7-14 GB/s are) or
/// in <c>--dir</c> with direct I/O (<c>disk-*</c>: the main disk through another filesystem, the image's own page
/// cache out of the way), a filesystem on it and a copy of the weights file. Everything it made goes on
/// <see cref="Dispose"/> (after the passes, and on errors), and on Ctrl+C, SIGTERM, SIGQUIT and process exit, where
/// the file may still be open: then the unmounts are lazy and the loop device detaches itself when the process is
/// gone (losetup -d on a busy device sets autoclear); then the handler ends the process (<see cref="SignalExit"/>),
/// which puts back every other setting the run changed. Everything lives under one folder named after the device and
/// the process id, so a run that was killed (SIGKILL) is recognisable in <c>losetup -a</c> and <c>mount</c>.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class ScratchDevice : IDisposable
{
    private const long MinimumImageBytes = 512L << 20; // mkfs.xfs refuses filesystems under 300 MB
    private const long MemoryMargin = 512L << 20;

    private readonly DeviceSpec _spec;
    private readonly ProgressLine _progress;
    private readonly string _root;
    private readonly string? _tmpfs;
    private readonly string _image;
    private readonly string _mount;
    private readonly PosixSignalRegistration[] _signals;
    private string? _loop;
    private int? _readAheadBeforeAttach;
    private int _removed;

    private ScratchDevice(DeviceSpec spec, string directory, ProgressLine progress)
    {
        _spec = spec;
        _progress = progress;
        _root = Path.GetFullPath(Path.Combine(directory, string.Create(CultureInfo.InvariantCulture, $"device-{spec.Name}-{Environment.ProcessId}")));
        _tmpfs = spec.InRam ? Path.Combine(_root, "tmpfs") : null;
        _image = Path.Combine(_tmpfs ?? _root, "image");
        _mount = Path.Combine(_root, "mnt");
        _signals =
        [
            PosixSignalRegistration.Create(PosixSignal.SIGINT, OnSignal),
            PosixSignalRegistration.Create(PosixSignal.SIGTERM, OnSignal),
            PosixSignalRegistration.Create(PosixSignal.SIGQUIT, OnSignal),
        ];
        AppDomain.CurrentDomain.ProcessExit += OnProcessExit;
    }

    internal string Name => _spec.Name;

    /// <summary>The copy of the weights on the device's filesystem.</summary>
    internal WeightsFile File { get; private set; } = null!;

    /// <summary>
    /// The loop device's read_ahead_kb before it was attached (attaching sets it from the image's filesystem), put
    /// back after it is detached.
    /// </summary>
    internal int? ReadAheadBeforeAttach => _readAheadBeforeAttach;

    /// <summary>"ext4 on /dev/loop3, a loop device over a 768 MiB file on a tmpfs (RAM)".</summary>
    internal string Description { get; private set; } = string.Empty;

    /// <summary>
    /// The devices of <paramref name="devices"/>, in order, each with the file on it and the loop device's
    /// read_ahead_kb before it was attached (null for <c>main</c>), which its read-ahead passes restore: <c>main</c>
    /// is <paramref name="source"/> where it is; every other device gets a copy, made (and said) before its passes
    /// and removed when the caller moves to the next device or leaves the loop, by an error too. A device that cannot
    /// be made here is skipped with the reason in <paramref name="notes"/>.
    /// </summary>
    internal static IEnumerable<(DeviceSpec Device, WeightsFile File, int? ReadAheadBeforeAttach)> Each(IEnumerable<DeviceSpec> devices, WeightsFile source,
        string directory, ProgressLine progress, List<string> notes)
    {
        foreach (DeviceSpec device in devices)
        {
            using ScratchDevice? scratch = device.IsMain ? null : TryCreate(device, source, directory, progress, notes);
            if (!device.IsMain && scratch is null)
            {
                continue;
            }

            yield return (device, scratch?.File ?? source, scratch?.ReadAheadBeforeAttach);
        }
    }

    /// <summary>The error where every device asked for was skipped, with the notes that say why.</summary>
    internal static BenchException NoPassRan(IEnumerable<string> notes) =>
        new("No pass ran: " + string.Join(" ", notes.Where(static n => n.Contains("skipped", StringComparison.Ordinal))));

    /// <summary>
    /// Makes the device with a copy of <paramref name="source"/>, saying so before; null, with the reason in
    /// <paramref name="notes"/>, where it cannot be made here (not root, a tool or the memory missing, mkfs or mount
    /// refused), after removing whatever part of it was made.
    /// </summary>
    internal static ScratchDevice? TryCreate(DeviceSpec spec, WeightsFile source, string directory, ProgressLine progress, List<string> notes)
    {
        long imageBytes = ImageBytes(source.Length);
        if (Unavailable(spec, source, directory, imageBytes) is { } why)
        {
            Skip(spec, why, notes, progress);
            return null;
        }

        var device = new ScratchDevice(spec, directory, progress);
        try
        {
            device.Make(source, imageBytes);
            notes.Add($"{spec.Name}: {device.Description}; made for this run and removed after it.");
            return device;
        }
        catch (Exception e) when (e is BenchException or IOException or UnauthorizedAccessException)
        {
            device.Dispose();
            Skip(spec, e.Message, notes, progress);
            return null;
        }
    }

    public void Dispose()
    {
        Remove(lazy: false, out string removed);
        AppDomain.CurrentDomain.ProcessExit -= OnProcessExit;
        foreach (PosixSignalRegistration signal in _signals)
        {
            signal.Dispose();
        }

        if (removed.Length > 0)
        {
            _progress.Note($"{_spec.Name}: removed ({removed}).");
        }
    }

    private static void Skip(DeviceSpec spec, string why, List<string> notes, ProgressLine progress)
    {
        string note = $"{spec.Name}: skipped, {why.TrimEnd('.')}.";
        progress.Note(note);
        notes.Add(note);
    }

    /// <summary>The image: the file, room for the filesystem's own data, and never under what mkfs.xfs accepts.</summary>
    private static long ImageBytes(long fileBytes)
    {
        long bytes = Math.Max(MinimumImageBytes, fileBytes + (fileBytes / 8) + (256L << 20));
        return (bytes + (1L << 20) - 1) & ~((1L << 20) - 1);
    }

    /// <summary>Why the device cannot be made here, checked before anything is made; null where it can.</summary>
    private static string? Unavailable(DeviceSpec spec, WeightsFile source, string directory, long imageBytes)
    {
        if (!Environment.IsPrivilegedProcess)
        {
            return "making a block device needs root (losetup, mkfs, mount)";
        }

        foreach ((string tool, string package) in (ValueTuple<string, string>[])[("losetup", "mount"), ("mount", "mount"), ("umount", "mount"),
            ($"mkfs.{spec.FileSystem}", spec.Package)])
        {
            if (ExternalTool.Find(tool) is null)
            {
                return $"{tool} is not installed (apt-get install {package})";
            }
        }

        if (spec.InRam)
        {
            // The copy in RAM, its page cache when a row reads it, and a row's own buffer of the whole file.
            long needed = imageBytes + (2 * source.Length) + MemoryMargin;
            long available = MemInfo.Bytes("MemAvailable");
            if (available < needed)
            {
                return $"a {Sizes.Format(source.Length)} file on a RAM device needs about {Sizes.Format(needed)} of available memory, " +
                    $"and {Sizes.Format(available)} is available; use a smaller --size";
            }

            return null;
        }

        Directory.CreateDirectory(directory);
        long free = new DriveInfo(Path.GetFullPath(directory)).AvailableFreeSpace;
        return free < imageBytes + MemoryMargin
            ? $"its {Sizes.Format(imageBytes)} image needs {Sizes.Format(imageBytes + MemoryMargin)} free in '{directory}', which has {Sizes.Format(free)}; use --dir on a larger disk"
            : null;
    }

    private void Make(WeightsFile source, long imageBytes)
    {
        string backing = _spec.InRam
            ? $"a {Sizes.Format(imageBytes)} file on a tmpfs mounted at {_tmpfs} (RAM)"
            : $"a {Sizes.Format(imageBytes)} file in {_root} with direct I/O (the disk, not the image's page cache)";
        _progress.Note($"{_spec.Name}: making a block device for its passes: a loop device over {backing}, {_spec.FileSystem} on it, " +
            $"a copy of the weights; removed after its passes, on errors and on Ctrl+C/SIGTERM.");
        Directory.CreateDirectory(_mount);
        if (_tmpfs is not null)
        {
            Directory.CreateDirectory(_tmpfs);
            ExternalTool.Run("mount", "-t", "tmpfs", "-o", string.Create(CultureInfo.InvariantCulture, $"size={(imageBytes >> 20) + 64}m,mode=0700"),
                "sharpi-bench-tmpfs", _tmpfs);
        }

        using (var image = new FileStream(_image, FileMode.CreateNew, FileAccess.Write))
        {
            image.SetLength(imageBytes); // sparse: a RAM image takes only what the filesystem writes
        }

        _loop = Attach(direct: !_spec.InRam);
        string loopName = Path.GetFileName(_loop);
        string dio = BlockDevice.TryRead($"/sys/block/{loopName}/loop/dio") == "1" ? "direct I/O" : "buffered I/O";
        _progress.Update($"{_spec.Name}: mkfs.{_spec.FileSystem} {_loop}");
        ExternalTool.Run($"mkfs.{_spec.FileSystem}", MkfsArguments(_spec.FileSystem, _loop));
        ExternalTool.Run("mount", _loop, _mount);

        string path = Path.Combine(_mount, Path.GetFileName(source.Path));
        Copy(source, path);
        File = new WeightsFile(path, source.Length, source.Generated) { AlsoEvict = _spec.InRam ? null : _image };
        PageCache.Evict(path);
        if (!_spec.InRam)
        {
            PageCache.Evict(_image);
        }

        BlockDevice device = BlockDevice.Of(path);
        Description = $"{_spec.FileSystem} on {_loop}, a loop device ({dio}) over {(_spec.InRam ? $"a {Sizes.Format(imageBytes)} file on a tmpfs (RAM)" : $"a {Sizes.Format(imageBytes)} file on the disk of --dir")}, " +
            $"read_ahead_kb {device.ReadAheadKb?.ToString(CultureInfo.InvariantCulture) ?? "n/a"}{(device.BdiReadAheadPath is null ? string.Empty : " (the btrfs filesystem's own)")}";
        _progress.Note($"{_spec.Name}: {Description}.");
    }

    /// <summary>
    /// Attaches the image to the first free loop device, after reading that device's read_ahead_kb (attaching
    /// changes it); another process may take the device first, so a few tries.
    /// </summary>
    private string Attach(bool direct)
    {
        string error = string.Empty;
        for (int attempt = 0; attempt < 5; attempt++)
        {
            string loop = ExternalTool.Run("losetup", "--find").Trim();
            int? before = int.TryParse(BlockDevice.TryRead($"/sys/block/{Path.GetFileName(loop)}/queue/read_ahead_kb"), NumberStyles.None, CultureInfo.InvariantCulture, out int kb)
                ? kb : null;
            string[] arguments = direct ? ["--direct-io=on", loop, _image] : [loop, _image];
            if (ExternalTool.TryRun("losetup", out _, out error, arguments))
            {
                _readAheadBeforeAttach = before;
                return loop;
            }
        }

        throw new BenchException($"could not attach {_image} to a loop device: {error.Trim()}");
    }

    /// <summary>mkfs without questions; ext4 initialises its inode tables and journal now, not in a background thread during the rows.</summary>
    private static string[] MkfsArguments(string fileSystem, string device) => fileSystem switch
    {
        "ext4" => ["-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", device],
        _ => ["-q", "-f", device],
    };

    private void Copy(WeightsFile source, string path)
    {
        const int Block = 8 * 1024 * 1024;
        long started = Stopwatch.GetTimestamp();
        byte[] buffer = new byte[Block];
        using (var from = new FileStream(source.Path, FileMode.Open, FileAccess.Read, FileShare.Read, 1, FileOptions.SequentialScan))
        using (var to = new FileStream(path, FileMode.CreateNew, FileAccess.Write, FileShare.None, 1))
        {
            for (long copied = 0; copied < source.Length;)
            {
                int read = from.Read(buffer, 0, (int)Math.Min(Block, source.Length - copied));
                if (read == 0)
                {
                    throw new BenchException($"'{source.Path}' ended at {copied} bytes while it was copied to {_spec.Name}; was it truncated?");
                }

                to.Write(buffer, 0, read);
                copied += read;
                _progress.Update($"{_spec.Name}: copying the weights: {100.0 * copied / source.Length:0}%");
            }

            to.Flush(flushToDisk: true);
        }

        _progress.Note(string.Create(CultureInfo.InvariantCulture,
            $"{_spec.Name}: copied {Sizes.Format(source.Length)} of weights in {Stopwatch.GetElapsedTime(started).TotalSeconds:0.0} s."));
    }

    /// <summary>Removes the device (lazily: the rows may have its file open) and ends the process itself (<see cref="SignalExit"/>).</summary>
    private void OnSignal(PosixSignalContext context)
    {
        context.Cancel = true;
        SignalExit.Begin();
        Remove(lazy: true, out string removed);
        if (removed.Length > 0)
        {
            Console.Error.WriteLine($"{context.Signal}: {_spec.Name} removed ({removed}).");
        }

        SignalExit.Exit(context.Signal);
    }

    private void OnProcessExit(object? sender, EventArgs e)
    {
        Remove(lazy: true, out string removed);
        if (removed.Length > 0)
        {
            Console.Error.WriteLine($"{_spec.Name} removed at exit ({removed}).");
        }
    }

    /// <summary>
    /// Removes whatever of the device exists, once: the filesystem, every loop device over the image, the image, the
    /// tmpfs, the folders. <paramref name="lazy"/> (a signal or exit, files may be open): lazy unmounts, and a busy
    /// loop device detaches when the process is gone. Failures are said, never thrown: the rest still goes.
    /// </summary>
    private void Remove(bool lazy, out string removed)
    {
        removed = string.Empty;
        if (Interlocked.Exchange(ref _removed, 1) != 0)
        {
            return;
        }

        var done = new List<string>();
        var failed = new List<string>();
        if (IsMountPoint(_mount))
        {
            Unmount(_mount, lazy, done, failed);
        }

        foreach (string loop in LoopDevicesOver(_image, _loop))
        {
            Step(ExternalTool.TryRun("losetup", out _, out string error, "-d", loop), $"{loop} detached", $"losetup -d {loop}: {error.Trim()}", done, failed);
        }

        if (_loop is not null && _readAheadBeforeAttach is int readAhead)
        {
            string path = $"/sys/block/{Path.GetFileName(_loop)}/queue/read_ahead_kb";
            try
            {
                System.IO.File.WriteAllText(path, readAhead.ToString(CultureInfo.InvariantCulture));
                done.Add($"its read_ahead_kb back to {readAhead}");
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                failed.Add($"read_ahead_kb of {_loop} back to {readAhead}: {e.Message}");
            }
        }

        if (System.IO.File.Exists(_image))
        {
            TryDelete(_image, failed);
        }
        if (_tmpfs is not null && IsMountPoint(_tmpfs))
        {
            Unmount(_tmpfs, lazy, done, failed);
        }

        foreach (string? folder in (string?[])[_mount, _tmpfs, _root])
        {
            if (folder is not null && Directory.Exists(folder) && !IsMountPoint(folder))
            {
                try
                {
                    Directory.Delete(folder);
                }
                catch (IOException e)
                {
                    failed.Add($"rmdir {folder}: {e.Message}");
                }
            }
        }

        removed = string.Join(", ", done);
        if (failed.Count > 0)
        {
            string message = $"{_spec.Name}: not everything could be removed: {string.Join("; ", failed)}";
            Console.Error.WriteLine(message);
            removed += (removed.Length > 0 ? "; " : string.Empty) + "LEFT BEHIND: " + string.Join("; ", failed);
        }
    }

    /// <summary>
    /// Unmounts <paramref name="path"/>: a few tries (a file closed a moment ago can keep it busy), then lazily; a
    /// lazy caller goes straight to <c>umount -l</c>.
    /// </summary>
    private static void Unmount(string path, bool lazy, List<string> done, List<string> failed)
    {
        string error = string.Empty;
        for (int attempt = 0; !lazy && attempt < 10; attempt++)
        {
            if (ExternalTool.TryRun("umount", out _, out error, path))
            {
                done.Add($"{path} unmounted");
                return;
            }

            Thread.Sleep(100);
        }

        Step(ExternalTool.TryRun("umount", out _, out string lazyError, "-l", path), $"{path} unmounted (lazily)",
            $"umount -l {path}: {lazyError.Trim()} {error.Trim()}", done, failed);
    }

    private static void Step(bool succeeded, string what, string failure, List<string> done, List<string> failed) =>
        (succeeded ? done : failed).Add(succeeded ? what : failure);

    private static void TryDelete(string path, List<string> failed)
    {
        try
        {
            System.IO.File.Delete(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            failed.Add($"rm {path}: {e.Message}");
        }
    }

    /// <summary>Whether a filesystem is mounted at <paramref name="path"/> (this process's <c>/proc/self/mountinfo</c>).</summary>
    private static bool IsMountPoint(string path)
    {
        string? mountInfo = BlockDevice.TryRead("/proc/self/mountinfo");
        return mountInfo is not null && mountInfo.Split('\n').Any(line =>
        {
            string[] fields = line.Split(' ');
            return fields.Length > 4 && fields[4].Replace("\\040", " ", StringComparison.Ordinal) == path;
        });
    }

    /// <summary>
    /// The loop devices whose backing file is <paramref name="image"/> (<c>/sys/block/loop*/loop/backing_file</c>,
    /// " (deleted)" once it is unlinked), and <paramref name="known"/>: one set up a moment before a signal is found too.
    /// </summary>
    private static List<string> LoopDevicesOver(string image, string? known)
    {
        var loops = new List<string>();
        if (known is not null && BlockDevice.TryRead($"/sys/block/{Path.GetFileName(known)}/loop/backing_file") is not null)
        {
            loops.Add(known);
        }

        foreach (string block in Directory.EnumerateDirectories("/sys/block", "loop*"))
        {
            string? backing = BlockDevice.TryRead(Path.Combine(block, "loop", "backing_file"));
            string device = "/dev/" + Path.GetFileName(block);
            if (backing is not null && (backing == image || backing == image + " (deleted)") && !loops.Contains(device))
            {
                loops.Add(device);
            }
        }

        return loops;
    }
}
