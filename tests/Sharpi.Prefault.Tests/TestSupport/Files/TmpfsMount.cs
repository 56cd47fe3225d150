using System.Diagnostics;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A small tmpfs the test mounts on a folder of its own (root only) and always unmounts and removes: a file system
/// that a read fault on a hole fills, and that reports when it is full.
/// </summary>
public sealed class TmpfsMount : IDisposable
{
    private readonly bool _ownsFolder = true;

    private TmpfsMount(string path) => Path = path;

    private TmpfsMount(string path, bool ownsFolder)
        : this(path) => _ownsFolder = ownsFolder;

    public string Path { get; }

    /// <summary>Bytes in use on the file system (statvfs).</summary>
    public long UsedBytes
    {
        get
        {
            var drive = new DriveInfo(Path);
            return drive.TotalSize - drive.TotalFreeSpace;
        }
    }

    /// <summary>Mounts a tmpfs of <paramref name="bytes"/> bytes.</summary>
    public static TmpfsMount Create(long bytes)
    {
        string path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"sharpi-tmpfs-{Guid.NewGuid():N}");
        Directory.CreateDirectory(path);
        if (Run("mount", "-t", "tmpfs", "-o", $"size={bytes},mode=0755", "sharpi-test", path) != 0)
        {
            Directory.Delete(path);
            throw new InvalidOperationException($"mount -t tmpfs on {path} failed");
        }

        return new TmpfsMount(path);
    }

    /// <summary>
    /// Mounts a tmpfs of <paramref name="bytes"/> bytes over the existing folder <paramref name="folder"/>, hiding what
    /// is there; dispose unmounts it and leaves the folder.
    /// </summary>
    public static TmpfsMount CreateOver(string folder, long bytes)
    {
        if (Run("mount", "-t", "tmpfs", "-o", $"size={bytes},mode=0755", "sharpi-test", folder) != 0)
        {
            throw new InvalidOperationException($"mount -t tmpfs on {folder} failed");
        }

        return new TmpfsMount(folder, ownsFolder: false);
    }

    /// <summary>Writes zeros to a file of its own until the file system is full (ENOSPC), and keeps it.</summary>
    public void Fill()
    {
        using var stream = new FileStream(System.IO.Path.Combine(Path, "filler"), FileMode.Create, FileAccess.Write);
        byte[] block = new byte[64 * 1024];
        try
        {
            while (true)
            {
                stream.Write(block);
            }
        }
        catch (IOException)
        {
            // ENOSPC: full. The stream's own flush on dispose fails the same way.
        }

        try
        {
            stream.Dispose();
        }
        catch (IOException)
        {
        }
    }

    public void Dispose()
    {
        if (Run("umount", Path) != 0)
        {
            _ = Run("umount", "--lazy", Path); // something still maps a file of it
        }

        if (_ownsFolder)
        {
            Directory.Delete(Path, recursive: true);
        }
    }

    private static int Run(string command, params string[] args)
    {
        using Process process = Process.Start(new ProcessStartInfo(command, args) { RedirectStandardError = true, UseShellExecute = false })!;
        process.StandardError.ReadToEnd();
        process.WaitForExit();
        return process.ExitCode;
    }
}
