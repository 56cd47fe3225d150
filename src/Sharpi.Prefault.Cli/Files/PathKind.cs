using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Cli.Files;

/// <summary>What a path names, told without opening it: opening a FIFO for reading blocks until a writer comes.</summary>
internal enum PathKind
{
    Missing,
    Regular,
    Directory,
    Fifo,
    Socket,
    Device,
    Unreadable,
    TooLong,
    SymlinkLoop,
    Symlink,
    Invalid,

    /// <summary>
    /// Not found by a name that holds U+FFFD: what .NET makes of bytes that are not valid UTF-8 (in a directory listing
    /// or an argument), so the name it has cannot open the file the bytes named.
    /// </summary>
    NotUtf8,
}

internal static class PathKinds
{
    private const int ENOENT = 2;
    private const int ENOTDIR = 20;
    private const int EACCES = 13;
    private const int ENAMETOOLONG = 36;
    private const int ELOOP = 40;

    /// <summary>The kind of what <paramref name="path"/> names, following symlinks as open would.</summary>
    public static PathKind Of(string path) => Of(path, out _);

    /// <summary>
    /// The kind of what <paramref name="path"/> names, following symlinks, and which file it is whatever path reached it
    /// (<paramref name="key"/>: device and inode on Linux; <see langword="default"/> elsewhere and when it cannot be told).
    /// </summary>
    public static PathKind Of(string path, out FileKey key) => Of(path, followLinks: true, out key);

    /// <summary>The kind of <paramref name="path"/> itself: a symlink is <see cref="PathKind.Symlink"/>, not what it points at.</summary>
    public static PathKind OfLink(string path, out FileKey key) => Of(path, followLinks: false, out key);

    /// <summary>Which file an open descriptor is (device and inode on Linux; <see langword="default"/> elsewhere).</summary>
    public static unsafe FileKey KeyOf(Microsoft.Win32.SafeHandles.SafeFileHandle handle)
    {
        if (!OperatingSystem.IsLinux())
        {
            return default;
        }

        Interop.Libc.StatxBuffer stat;
        return Interop.Libc.Statx(handle, string.Empty, Interop.Libc.AT_EMPTY_PATH, Interop.Libc.STATX_INO, &stat) == 0
            ? new FileKey(((ulong)stat.DevMajor << 32) | stat.DevMinor, stat.Inode)
            : default;
    }

    private static unsafe PathKind Of(string path, bool followLinks, out FileKey key)
    {
        key = default;
        if (path.Length == 0 || path.Contains('\0', StringComparison.Ordinal))
        {
            return PathKind.Invalid;
        }

        if (!OperatingSystem.IsLinux())
        {
            if (!followLinks && new FileInfo(path) is { Exists: true, LinkTarget: not null })
            {
                return PathKind.Symlink;
            }

            return Directory.Exists(path) ? PathKind.Directory : File.Exists(path) ? PathKind.Regular : PathKind.Missing;
        }

        Interop.Libc.StatxBuffer stat;
        int flags = followLinks ? 0 : Interop.Libc.AT_SYMLINK_NOFOLLOW;
        if (Interop.Libc.Statx(Interop.Libc.AT_FDCWD, path, flags, Interop.Libc.STATX_TYPE | Interop.Libc.STATX_INO, &stat) != 0)
        {
            return Marshal.GetLastPInvokeError() switch
            {
                ENOENT when path.Contains('\uFFFD', StringComparison.Ordinal) => PathKind.NotUtf8,
                ENOENT or ENOTDIR => PathKind.Missing,
                EACCES => PathKind.Unreadable,
                ENAMETOOLONG => PathKind.TooLong,
                ELOOP => PathKind.SymlinkLoop,
                _ => PathKind.Missing,
            };
        }

        key = new FileKey(((ulong)stat.DevMajor << 32) | stat.DevMinor, stat.Inode);
        return (stat.Mode & 0xF000) switch
        {
            0x8000 => PathKind.Regular,
            0x4000 => PathKind.Directory,
            0x1000 => PathKind.Fifo,
            0xC000 => PathKind.Socket,
            0xA000 => PathKind.Symlink,
            _ => PathKind.Device,
        };
    }

    /// <summary>What the kernel's ENAMETOOLONG means, and the way round it (symlinks are followed).</summary>
    public const string TooLongMessage =
        "path too long (ENAMETOOLONG): longer than PATH_MAX (4096 bytes) or a component longer than NAME_MAX (255 bytes); "
        + "name the file by a shorter path, such as a symlink to it or to a directory nearer it.";

    /// <summary>
    /// Linux file names are bytes; .NET turns those that are not valid UTF-8 into U+FFFD (shown as \ufffd), and a name
    /// so changed no longer opens the file. Such a file is named, never skipped in silence.
    /// </summary>
    public const string NotUtf8Message =
        "cannot be used: its name is not valid UTF-8 (\\ufffd marks the bytes that are not), and .NET cannot open a file by such a name; "
        + "rename it to valid UTF-8 (convmv, or mv with a shell glob) to use it.";

    /// <summary>Why a path of this kind cannot be worked on; null for a regular file.</summary>
    public static string? Refusal(PathKind kind) => kind switch
    {
        PathKind.Regular => null,
        PathKind.Missing => "no such file.",
        PathKind.Directory => "is a directory; pass -r to work on the files in it.",
        PathKind.Fifo => "is a FIFO, not a regular file; refused (reading it would block until a writer comes).",
        PathKind.Socket => "is a socket, not a regular file; refused.",
        PathKind.Device => "is a device, not a regular file; refused.",
        PathKind.Unreadable => "permission denied.",
        PathKind.TooLong => TooLongMessage,
        PathKind.Symlink => "is a symbolic link.",
        PathKind.SymlinkLoop => "too many levels of symbolic links (ELOOP): a symlink loop, or a chain longer than the kernel follows.",
        PathKind.NotUtf8 => NotUtf8Message,
        _ => "not a valid path (empty, or holds a NUL character).",
    };
}

/// <summary>A file's identity on its file system (device and inode): two paths to one file (a symlink, a hard link, a loop) share it.</summary>
internal readonly record struct FileKey(ulong Device, ulong Inode)
{
    /// <summary>False for <see langword="default"/>: the platform (or the failed lookup) told no identity.</summary>
    public bool IsKnown => Device != 0 || Inode != 0;
}
