using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

/// <summary>
/// Refuses what is not a regular file before it is opened: <c>open(O_RDONLY)</c> on a FIFO blocks until a writer
/// appears (forever, for a model path someone replaced with <c>mkfifo</c>), a device can be endless, and a directory
/// reads as "access denied" on some paths. One <c>statx</c> (following symlinks, as open does); elsewhere than Linux
/// only directories are told apart.
/// </summary>
internal static class FileKind
{
    private const int AtFdCwd = -100;
    private const int SIfMt = 0xF000;
    private const int SIfReg = 0x8000;
    private const int SIfDir = 0x4000;
    private const int SIfChr = 0x2000;
    private const int SIfBlk = 0x6000;

    /// <param name="path">The path about to be opened.</param>
    /// <param name="allowDevices">
    /// Let devices through, for a caller that opens without reading (<see cref="PageCache.Evict(string)"/>: fsync then
    /// says what the device makes of it). FIFOs, sockets and directories are refused always.
    /// </param>
    /// <exception cref="IOException">The path names a directory, a FIFO, a socket or a device, or holds a NUL character.</exception>
    internal static unsafe void ThrowIfNotRegular(string path, bool allowDevices = false)
    {
        if (path.Contains('\0', StringComparison.Ordinal))
        {
            throw new IOException($"'{path.Replace("\0", "\\0", StringComparison.Ordinal)}' contains a NUL character; no file has such a name.");
        }

        if (!OperatingSystem.IsLinux())
        {
            if (Directory.Exists(path))
            {
                throw new IOException($"'{path}' is a directory, not a file.");
            }

            return;
        }

        // AT_FDCWD is not a descriptor to own or close: a non-owning handle carries it to statx's dirfd.
        using var currentDirectory = new SafeFileHandle(AtFdCwd, ownsHandle: false);
        Interop.Libc.StatxBuffer stat;
        if (Interop.Libc.Statx(currentDirectory, path, 0, Interop.LinuxConstants.STATX_TYPE, &stat) != 0)
        {
            return; // missing, unreadable: the open that follows says so in its own words
        }

        int type = stat.Mode & SIfMt;
        if (type == SIfReg || (allowDevices && type is SIfChr or SIfBlk))
        {
            return;
        }

        throw new IOException(type == SIfDir
            ? $"'{path}' is a directory, not a file."
            : $"'{path}' is not a regular file ({Describe(type)}); refused, since reading it could block forever or never end.");
    }

    internal static string Describe(int type) => type switch
    {
        0x1000 => "a FIFO",
        0xC000 => "a socket",
        0x2000 => "a character device",
        0x6000 => "a block device",
        0x4000 => "a directory",
        _ => "not a regular file",
    };
}
