namespace Sharpi.Prefault;

/// <summary>Opens paths without ever blocking: O_NONBLOCK until the descriptor is known regular (a FIFO may be renamed in).</summary>
internal static class FileOpener
{
    private const FileShare ReadersAndWriters = FileShare.ReadWrite | FileShare.Delete;

    /// <summary>
    /// Opens <paramref name="path"/> (symlinks followed) for reading; devices only where <paramref name="allowDevices"/>,
    /// <paramref name="share"/> on Windows only.
    /// </summary>
    /// <exception cref="FileNotFoundException">ENOENT or ENOTDIR (in the inner exception).</exception>
    /// <exception cref="UnauthorizedAccessException">EACCES or EPERM (in the inner exception).</exception>
    /// <exception cref="IOException">No regular file, a NUL in the path, or open or fcntl failed (a <see cref="PlatformCallException"/>).</exception>
    internal static SafeFileHandle OpenRead(string path, bool allowDevices = false, FileOptions hint = FileOptions.None, FileShare share = ReadersAndWriters)
    {
        if (path.Contains('\0', StringComparison.Ordinal))
        {
            ThrowHelper.ThrowNulInPath(path);
        }

        if (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS())
        {
            SafeFileHandle handle = TryOpenUnix(path, 0, allowDevices, out int errno, out FileKind refused) ?? throw Refused(path, errno, refused);
            if (OperatingSystem.IsLinux() && hint is FileOptions.RandomAccess or FileOptions.SequentialScan)
            {
                // Advice: a refusal changes only the read-ahead.
                _ = Interop.Libc.PosixFadvise(handle, 0, 0, hint == FileOptions.RandomAccess
                    ? Interop.LinuxConstants.POSIX_FADV_RANDOM
                    : Interop.LinuxConstants.POSIX_FADV_SEQUENTIAL);
            }

            return handle;
        }

        FileStatus.ThrowIfNotRegular(path, allowDevices);
        return File.OpenHandle(path, FileMode.Open, FileAccess.Read, share, hint & (FileOptions.RandomAccess | FileOptions.SequentialScan));
    }

    /// <summary><see cref="OpenRead"/> in a FileStream that owns the descriptor; a <paramref name="bufferSize"/> of 0 or 1 is unbuffered.</summary>
    /// <inheritdoc cref="OpenRead" path="/exception"/>
    internal static FileStream OpenReadStream(string path, int bufferSize, FileOptions hint = FileOptions.None)
    {
        SafeFileHandle handle = OpenRead(path, hint: hint);
        try
        {
            return new FileStream(handle, FileAccess.Read, Math.Max(bufferSize, 1));
        }
        catch
        {
            handle.Dispose();
            throw;
        }
    }

    /// <summary>Opens a regular file with <paramref name="directFlag"/>; null with open's errno (EINVAL: O_DIRECT refused).</summary>
    /// <exception cref="IOException">The descriptor is no regular file, or fcntl failed.</exception>
    [SupportedOSPlatform("linux")]
    internal static SafeFileHandle? TryOpenDirect(string path, int directFlag, out int errno)
    {
        if (path.Contains('\0', StringComparison.Ordinal))
        {
            ThrowHelper.ThrowNulInPath(path);
        }

        SafeFileHandle? handle = TryOpenUnix(path, directFlag, allowDevices: false, out errno, out FileKind refused);
        if (refused != FileKind.Missing)
        {
            ThrowHelper.ThrowNotRegularFile(path, refused);
        }

        return handle;
    }

    /// <summary><see cref="OpenRead"/> that never throws: null with open's errno, or with 0 for no regular file.</summary>
    [SupportedOSPlatform("linux")]
    [SupportedOSPlatform("macos")]
    internal static SafeFileHandle? TryOpenRead(string path, out int errno)
    {
        if (path.Contains('\0', StringComparison.Ordinal))
        {
            errno = OperatingSystem.IsLinux() ? Interop.LinuxConstants.EINVAL : Interop.OSXConstants.EINVAL;
            return null;
        }

        try
        {
            return TryOpenUnix(path, 0, allowDevices: false, out errno, out _);
        }
        catch (PlatformCallException e)
        {
            // fcntl failed (the descriptor is closed): a failed open to these callers.
            errno = e.HResult;
            return null;
        }
    }

    /// <summary>
    /// Opens with the caller's <paramref name="flags"/> (a pid file), as non-blocking as <see cref="OpenRead"/>; the caller
    /// checks the kind. Null with open's errno.
    /// </summary>
    /// <exception cref="IOException">fcntl failed to clear O_NONBLOCK (a <see cref="PlatformCallException"/>).</exception>
    [SupportedOSPlatform("linux")]
    internal static SafeFileHandle? TryOpenKept(string path, int flags, int mode, out int errno)
    {
        if (path.Contains('\0', StringComparison.Ordinal))
        {
            errno = Interop.LinuxConstants.EINVAL;
            return null;
        }

        SafeFileHandle? handle = OpenNonBlocking(path, flags, mode, out errno);
        return handle is null ? null : ClearNonBlocking(handle, path, Interop.LinuxConstants.O_NONBLOCK);
    }

    // Null with open's errno, or with the kind of a descriptor refused (and closed).
    [SupportedOSPlatform("linux")]
    [SupportedOSPlatform("macos")]
    private static SafeFileHandle? TryOpenUnix(string path, int extraFlags, bool allowDevices, out int errno, out FileKind refused)
    {
        refused = FileKind.Missing;
        int nonBlocking = OperatingSystem.IsLinux() ? Interop.LinuxConstants.O_NONBLOCK : Interop.OSXConstants.O_NONBLOCK;
        int readOnly = OperatingSystem.IsLinux() ? Interop.LinuxConstants.O_RDONLY : Interop.OSXConstants.O_RDONLY;
        SafeFileHandle? handle = OpenNonBlocking(path, readOnly | extraFlags, 0, out errno);
        if (handle is null)
        {
            return null;
        }

        FileKind kind;
        try
        {
            kind = FileStatus.Of(handle).Kind;
        }
        catch
        {
            handle.Dispose();
            throw;
        }

        if (kind == FileKind.Missing)
        {
            // No statx (glibc < 2.28): O_NONBLOCK stays, and a FIFO's read returns at once.
            return handle;
        }

        if (kind != FileKind.Regular && !(allowDevices && kind is FileKind.CharacterDevice or FileKind.BlockDevice))
        {
            refused = kind;
            handle.Dispose();
            return null;
        }

        return ClearNonBlocking(handle, path, nonBlocking);
    }

    // The one open(2) call, with O_CLOEXEC and O_NONBLOCK added; null with its errno.
    [SupportedOSPlatform("linux")]
    [SupportedOSPlatform("macos")]
    private static SafeFileHandle? OpenNonBlocking(string path, int flags, int mode, out int errno)
    {
        int added = OperatingSystem.IsLinux()
            ? Interop.LinuxConstants.O_CLOEXEC | Interop.LinuxConstants.O_NONBLOCK
            : Interop.OSXConstants.O_CLOEXEC | Interop.OSXConstants.O_NONBLOCK;
        SafeFileHandle handle = Interop.Libc.Open(path, flags | added, mode);
        if (handle.IsInvalid)
        {
            errno = Marshal.GetLastPInvokeError();
            handle.Dispose();
            return null;
        }

        errno = 0;
        return handle;
    }

    [SupportedOSPlatform("linux")]
    [SupportedOSPlatform("macos")]
    // The handle with O_NONBLOCK cleared; where fcntl fails, the handle is closed and the failure thrown.
    private static SafeFileHandle ClearNonBlocking(SafeFileHandle handle, string path, int nonBlocking)
    {
        int getFlags = OperatingSystem.IsLinux() ? Interop.LinuxConstants.F_GETFL : Interop.OSXConstants.F_GETFL;
        int setFlags = OperatingSystem.IsLinux() ? Interop.LinuxConstants.F_SETFL : Interop.OSXConstants.F_SETFL;
        int status = Interop.Libc.FcntlInt(handle, getFlags, 0);
        if (status == -1)
        {
            throw Closed(handle, PlatformError.LastErrno("fcntl(F_GETFL)"), path);
        }

        if ((status & nonBlocking) != 0 && Interop.Libc.FcntlInt(handle, setFlags, status & ~nonBlocking) == -1)
        {
            throw Closed(handle, PlatformError.LastErrno("fcntl(F_SETFL)"), path);
        }

        return handle;
    }

    private static PlatformCallException Closed(SafeFileHandle handle, PlatformError error, string path)
    {
        handle.Dispose();
        return new PlatformCallException(error, path);
    }

    private static Exception Refused(string path, int errno, FileKind refused)
    {
        if (refused != FileKind.Missing)
        {
            ThrowHelper.ThrowNotRegularFile(path, refused);
        }

        return OpenFailed(path, errno);
    }

    /// <summary>open's errno as the exception .NET's own open throws, with a <see cref="PlatformCallException"/> in it.</summary>
    internal static Exception OpenFailed(string path, int errno)
    {
        var failure = new PlatformCallException(PlatformError.FromErrno("open", errno), path);
        bool missing = OperatingSystem.IsMacOS()
            ? errno is Interop.OSXConstants.ENOENT or Interop.OSXConstants.ENOTDIR
            : errno is Interop.LinuxConstants.ENOENT or Interop.LinuxConstants.ENOTDIR;
        bool denied = OperatingSystem.IsMacOS()
            ? errno is Interop.OSXConstants.EACCES or Interop.OSXConstants.EPERM
            : errno is Interop.LinuxConstants.EACCES or Interop.LinuxConstants.EPERM;
        if (missing)
        {
            return new FileNotFoundException($"Could not find file '{path}' ({failure.Error}).", path, failure);
        }

        return denied ? new UnauthorizedAccessException($"Access to the path '{path}' is denied ({failure.Error}).", failure) : failure;
    }

    /// <summary>mmap's errno for a map MemoryMappedFile refused as "access denied"; null where mmap now succeeds.</summary>
    [SupportedOSPlatform("linux")]
    [SupportedOSPlatform("macos")]
    internal static unsafe PlatformCallException? MmapRefusal(SafeFileHandle handle, long length, string path)
    {
        if (length <= 0)
        {
            return null;
        }

        const int ProtRead = 0x1, MapShared = 0x1; // same on Linux and macOS
        void* address = Interop.Libc.Mmap(null, (nuint)length, ProtRead, MapShared, handle, 0);
        if (address != (void*)-1)
        {
            _ = Interop.Libc.Munmap(address, (nuint)length);
            return null;
        }

        return new PlatformCallException(PlatformError.LastErrno("mmap"), path, "the file was opened for reading, and the kernel refuses to map it.");
    }
}
