namespace Sharpi.Prefault;

/// <summary>What a path names, told without opening it (a FIFO's open blocks).</summary>
internal enum FileKind
{
    Missing,
    Regular,
    Directory,
    Fifo,
    CharacterDevice,
    BlockDevice,
    Socket,

    /// <summary>Told only where links are not followed.</summary>
    Symlink,
    Other,
}

/// <summary>
/// A file's kind, identity (device and inode as /proc/self/maps reports them; 0: unknown) and length, symlinks followed.
/// </summary>
internal readonly record struct FileStatus(FileKind Kind, ulong Device, ulong Inode, long Length)
{
    internal bool HasIdentity => Inode != 0;

    /// <summary>Two paths to one file share it.</summary>
    internal (ulong Device, ulong Inode) Identity => (Device, Inode);

    /// <summary>The status of <paramref name="path"/>; never throws: Missing with its errno (Linux) where stat fails.</summary>
    internal static FileStatus Of(string path, bool followLinks, out int errno)
    {
        errno = 0;
        if (OperatingSystem.IsLinux())
        {
            return StatxLinux(path, followLinks ? 0 : Interop.LinuxConstants.AT_SYMLINK_NOFOLLOW, out errno) ?? OfManaged(path);
        }

        if (!followLinks && new FileInfo(path) is { Exists: true, LinkTarget: not null })
        {
            return new FileStatus(FileKind.Symlink, 0, 0, 0);
        }

        return TryOf(path) ?? default;
    }

    /// <summary>The status of an open file; <see langword="default"/> where it cannot be read.</summary>
    internal static unsafe FileStatus Of(SafeFileHandle handle)
    {
        if (OperatingSystem.IsMacOS())
        {
            Interop.Libc.OSXStatBuffer st;
            return Interop.Libc.OSXFstat(handle, &st) == 0
                ? new FileStatus(KindOf(st.Mode & Interop.OSXConstants.S_IFMT), (uint)st.Device, st.Inode, st.Size)
                : default;
        }

        if (!OperatingSystem.IsLinux())
        {
            return default;
        }

        Interop.Libc.StatxBuffer stx;
        try
        {
            return Interop.Libc.Statx(handle, string.Empty, Interop.LinuxConstants.AT_EMPTY_PATH, Mask, &stx) == 0 ? FromStatx(stx) : default;
        }
        catch (EntryPointNotFoundException)
        {
            return default; // no statx (glibc < 2.28)
        }
    }

    /// <summary>The status of the file <paramref name="path"/> names, by stat, never open.</summary>
    /// <exception cref="IOException">stat failed other than for a missing file.</exception>
    internal static FileStatus Of(string path)
    {
        if (OperatingSystem.IsLinux())
        {
            return OfLinux(path);
        }

        if (OperatingSystem.IsMacOS())
        {
            return OfMacOS(path);
        }

        return OfManaged(path);
    }

    /// <summary>The status, or null where stat fails.</summary>
    internal static FileStatus? TryOf(string path)
    {
        try
        {
            return Of(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>The regular file's length; null for anything else or where stat fails.</summary>
    internal static long? TryRegularLength(string path) => TryOf(path) is { Kind: FileKind.Regular } status ? status.Length : null;

    /// <summary>Throws unless a regular file is there: FileNotFoundException for nothing, else IOException naming it.</summary>
    internal static FileStatus RequireRegular(string path)
    {
        FileStatus status = Of(path);
        if (status.Kind == FileKind.Missing)
        {
            ThrowHelper.ThrowModelFileNotFound(path);
        }

        if (status.Kind != FileKind.Regular)
        {
            ThrowHelper.ThrowNotRegularFile(path, status.Kind);
        }

        return status;
    }

    /// <summary>
    /// Refuses a directory, FIFO, socket or device (unless <paramref name="allowDevices"/>) before an open that could
    /// block or never end; a missing path or failed stat passes.
    /// </summary>
    /// <exception cref="IOException">The path names what is refused, or holds a NUL.</exception>
    internal static void ThrowIfNotRegular(string path, bool allowDevices = false)
    {
        if (path.Contains('\0', StringComparison.Ordinal))
        {
            ThrowHelper.ThrowNulInPath(path);
        }

        FileStatus status;
        try
        {
            status = Of(path);
        }
        catch (IOException)
        {
            return;
        }

        if (status.Kind is FileKind.Missing or FileKind.Regular || (allowDevices && status.Kind is FileKind.CharacterDevice or FileKind.BlockDevice))
        {
            return;
        }

        ThrowHelper.ThrowNotRegularFile(path, status.Kind);
    }

    private const uint Mask = Interop.LinuxConstants.STATX_TYPE | Interop.LinuxConstants.STATX_INO | Interop.LinuxConstants.STATX_SIZE;

    [SupportedOSPlatform("linux")]
    private static FileStatus OfLinux(string path)
    {
        if (StatxLinux(path, 0, out int errno) is not FileStatus status)
        {
            return OfManaged(path);
        }

        if (errno is not (0 or Interop.LinuxConstants.ENOENT or Interop.LinuxConstants.ENOTDIR))
        {
            ThrowHelper.ThrowStatFailed(path, errno);
        }

        return status;
    }

    // Null where there is no statx (glibc < 2.28).
    [SupportedOSPlatform("linux")]
    private static unsafe FileStatus? StatxLinux(string path, int flags, out int errno)
    {
        errno = 0;
        Interop.Libc.StatxBuffer stx;
        int result;
        // AT_FDCWD in a handle that never closes it.
        using (var cwd = new SafeFileHandle(Interop.LinuxConstants.AT_FDCWD, ownsHandle: false))
        {
            try
            {
                result = Interop.Libc.Statx(cwd, path, flags, Mask, &stx);
            }
            catch (EntryPointNotFoundException)
            {
                return null;
            }
        }

        if (result != 0)
        {
            errno = Marshal.GetLastPInvokeError();
            return default(FileStatus);
        }

        return FromStatx(stx);
    }

    [SupportedOSPlatform("linux")]
    private static FileStatus FromStatx(in Interop.Libc.StatxBuffer stx) =>
        new(KindOf(stx.Mode & Interop.LinuxConstants.S_IFMT), ((ulong)stx.DevMajor << 32) | stx.DevMinor, stx.Inode, (long)stx.Size);

    [SupportedOSPlatform("macos")]
    private static unsafe FileStatus OfMacOS(string path)
    {
        Interop.Libc.OSXStatBuffer st;
        if (Interop.Libc.OSXStat(path, &st) != 0)
        {
            int errno = Marshal.GetLastPInvokeError();
            if (errno is Interop.OSXConstants.ENOENT or Interop.OSXConstants.ENOTDIR)
            {
                return default;
            }

            ThrowHelper.ThrowStatFailed(path, errno);
        }

        FileKind kind = KindOf(st.Mode & Interop.OSXConstants.S_IFMT);
        return new FileStatus(kind, (uint)st.Device, st.Inode, st.Size);
    }

    // S_IF* values match on Linux and macOS.
    private static FileKind KindOf(int type) => type switch
    {
        Interop.LinuxConstants.S_IFREG => FileKind.Regular,
        Interop.LinuxConstants.S_IFDIR => FileKind.Directory,
        Interop.LinuxConstants.S_IFIFO => FileKind.Fifo,
        Interop.LinuxConstants.S_IFCHR => FileKind.CharacterDevice,
        Interop.LinuxConstants.S_IFBLK => FileKind.BlockDevice,
        Interop.LinuxConstants.S_IFSOCK => FileKind.Socket,
        Interop.LinuxConstants.S_IFLNK => FileKind.Symlink,
        _ => FileKind.Other,
    };

    // Windows names no FIFOs in the file system: existence and directories are left to tell.
    private static FileStatus OfManaged(string path)
    {
        if (Directory.Exists(path))
        {
            return new FileStatus(FileKind.Directory, 0, 0, 0);
        }

        var info = new FileInfo(path);
        return info.Exists ? new FileStatus(FileKind.Regular, 0, 0, info.Length) : default;
    }
}
