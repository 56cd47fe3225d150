using System.Diagnostics;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A real filesystem made for one test: an image file in a temporary folder, attached to a loop device (losetup),
/// formatted (mkfs.TYPE) and mounted with the options given; unmounted, detached and deleted on dispose, whatever
/// the test did. Needs root, losetup and the mkfs of the type.
/// </summary>
public sealed class LoopFilesystem : IDisposable
{
    private readonly string _folder;
    private string? _device;
    private bool _mounted;

    private LoopFilesystem(string folder)
    {
        _folder = folder;
        MountPoint = Path.Combine(folder, "mnt");
    }

    /// <summary>Where the filesystem is mounted.</summary>
    public string MountPoint { get; }

    /// <summary>Why no <paramref name="type"/> filesystem can be made here, or null.</summary>
    public static string? WhyUnavailable(string type)
    {
        if (!OperatingSystem.IsLinux())
        {
            return "Linux only: makes a loop device.";
        }

        if (!Environment.IsPrivilegedProcess)
        {
            return "needs root: attaches a loop device and mounts it.";
        }

        if (Which("losetup") is null)
        {
            return "needs losetup(8) (util-linux), and there is none.";
        }

        if (Which($"mkfs.{type}") is null)
        {
            return $"needs mkfs.{type} (apt-get install {(type == "btrfs" ? "btrfs-progs" : type == "xfs" ? "xfsprogs" : type)}), and there is none.";
        }

        string filesystems = File.Exists("/proc/filesystems") ? File.ReadAllText("/proc/filesystems") : string.Empty;
        return filesystems.Split('\n').Any(line => line.Split('\t').Last() == type)
            ? null
            : $"the kernel has no {type} (not in /proc/filesystems).";
    }

    /// <summary>Makes, formats and mounts a <paramref name="sizeBytes"/> filesystem of <paramref name="type"/> with <paramref name="mountOptions"/> (none when empty).</summary>
    public static LoopFilesystem Create(string type, long sizeBytes, string mountOptions = "")
    {
        string folder = Path.Combine(Path.GetTempPath(), $"sharpi-loop-{Guid.NewGuid():N}");
        Directory.CreateDirectory(folder);
        var fs = new LoopFilesystem(folder);
        try
        {
            string image = Path.Combine(folder, "image");
            using (var stream = new FileStream(image, FileMode.CreateNew))
            {
                stream.SetLength(sizeBytes);
            }

            fs._device = Run("losetup", "-f", "--show", image).Trim();
            Run($"mkfs.{type}", "-q", fs._device);
            Directory.CreateDirectory(fs.MountPoint);
            if (mountOptions.Length > 0)
            {
                Run("mount", "-o", mountOptions, fs._device, fs.MountPoint);
            }
            else
            {
                Run("mount", fs._device, fs.MountPoint);
            }

            fs._mounted = true;
            return fs;
        }
        catch
        {
            fs.Dispose();
            throw;
        }
    }

    public void Dispose()
    {
        if (_mounted && TryRun("umount", MountPoint) != 0)
        {
            _ = TryRun("umount", "-l", MountPoint); // a file still open: detach now, freed when closed
        }

        _mounted = false;
        if (_device is not null)
        {
            _ = TryRun("losetup", "-d", _device);
            _device = null;
        }

        try
        {
            Directory.Delete(_folder, recursive: true);
        }
        catch (IOException)
        {
            // Best effort: a lazily detached mount may hold the folder a little longer.
        }
    }

    private static string? Which(string command) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "/usr/sbin:/usr/bin:/sbin:/bin")
            .Split(':', StringSplitOptions.RemoveEmptyEntries)
            .Concat(["/usr/sbin", "/sbin"])
            .Select(directory => Path.Combine(directory, command))
            .FirstOrDefault(File.Exists);

    private static string Run(string command, params string[] args)
    {
        (int code, string output, string error) = Execute(command, args);
        if (code != 0)
        {
            throw new InvalidOperationException($"{command} {string.Join(' ', args)} exited {code}: {error}");
        }

        return output;
    }

    private static int TryRun(string command, params string[] args) => Execute(command, args).Code;

    private static (int Code, string Output, string Error) Execute(string command, string[] args)
    {
        var start = new ProcessStartInfo(Which(command) ?? command) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (string arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        using Process process = Process.Start(start)!;
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        Task<string> error = process.StandardError.ReadToEndAsync();
        process.WaitForExit();
        return (process.ExitCode, output.Result, error.Result);
    }
}
