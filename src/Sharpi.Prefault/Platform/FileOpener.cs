using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

/// <summary>
/// The one way the library and the tool open a path they did not create, for reading, without ever blocking: a "regular
/// file" check by path and an open after it race with a rename (a FIFO swapped in between blocks the open until a
/// writer appears, maybe never).
/// </summary>
internal static class FileOpener
{
    private const FileShare ReadersAndWriters = FileShare.ReadWrite | FileShare.Delete;

    /// <summary>Opens <paramref name="path"/> for reading, as a descriptor the caller owns.</summary>
    /// <param name="path">The path; symlinks are followed.</param>
    /// <param name="allowDevices">Accept a character or block device too (a caller that only fsyncs and advises).</param>
    /// <param name="hint">Read-ahead advice; other options are ignored on Linux and macOS.</param>
    /// <param name="share">Windows' share mode (ignored elsewhere, where sharing is not enforced).</param>
    /// <exception cref="FileNotFoundException">Nothing is there (open's ENOENT or ENOTDIR, in the inner exception).</exception>
    /// <exception cref="UnauthorizedAccessException">open refused the access (its EACCES or EPERM, in the inner exception).</exception>
    /// <exception cref="IOException">
    /// The descriptor is no regular file (a FIFO, a directory, a socket, or a device unless allowed), the path holds a
    /// NUL, or open or fcntl failed otherwise (<see cref="PlatformCallException"/>, naming the call).
    /// </exception>
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
                // Advice, as FileStream gives it for a path: a refusal changes only how far the kernel reads ahead.
                _ = Interop.Libc.PosixFadvise(handle, 0, 0, hint == FileOptions.RandomAccess
                    ? Interop.LinuxConstants.POSIX_FADV_RANDOM
                    : Interop.LinuxConstants.POSIX_FADV_SEQUENTIAL);
            }

            return handle;
        }

        FileStatus.ThrowIfNotRegular(path, allowDevices);
        return File.OpenHandle(path, FileMode.Open, FileAccess.Read, share, hint & (FileOptions.RandomAccess | FileOptions.SequentialScan));
    }

    /// <summary>
    /// <see cref="OpenRead"/> wrapped in a read-only FileStream that owns the descriptor; a <paramref name="bufferSize"/>
    /// of 0 or 1 reads unbuffered.
    /// </summary>
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

    /// <summary>
    /// Opens a regular file with O_DIRECT (plus O_CLOEXEC; read-only) on Linux; null with open's errno where open
    /// fails (EINVAL: the file system refuses O_DIRECT), so the caller can fall back to a buffered open.
    /// </summary>
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

    /// <summary>
    /// <see cref="OpenRead"/> for the callers that must never throw (an engine's first run, kernel files): null where
    /// open fails (<paramref name="errno"/> set) or where the descriptor is no regular file (<paramref name="errno"/>
    /// 0).
    /// </summary>
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
            // fcntl could not clear O_NONBLOCK (the descriptor is closed): a failed open to these callers.
            errno = e.HResult;
            return null;
        }
    }

    /// <summary>
    /// Opens <paramref name="path"/> with the caller's <paramref name="flags"/> (access mode, O_CREAT, O_EXCL,
    /// O_NOFOLLOW: a file the tool keeps, such as a pid file) plus O_CLOEXEC, by the same non-blocking open as
    /// <see cref="OpenRead"/>; the caller checks the descriptor's kind before it reads or writes. Null with open's
    /// errno where open fails.
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
        if (handle is null)
        {
            return null;
        }

        try
        {
            ClearNonBlocking(handle, path, Interop.LinuxConstants.O_NONBLOCK);
            return handle;
        }
        catch
        {
            handle.Dispose();
            throw;
        }
    }

    // Null with the errno where open fails, or with the kind of a descriptor the caller does not accept (closed then).
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

        try
        {
            FileKind kind = FileStatus.Of(handle).Kind;
            if (kind == FileKind.Missing)
            {
                // No statx in this C library (glibc < 2.28): the kind cannot be told, so O_NONBLOCK stays set. A regular
                // file reads the same with it; a FIFO's read then returns at once instead of blocking.
                return handle;
            }

            if (kind != FileKind.Regular && !(allowDevices && kind is FileKind.CharacterDevice or FileKind.BlockDevice))
            {
                refused = kind;
                handle.Dispose();
                return null;
            }

            ClearNonBlocking(handle, path, nonBlocking);
            return handle;
        }
        catch
        {
            handle.Dispose();
            throw;
        }
    }

    // open(2) with O_CLOEXEC and O_NONBLOCK added to flags: the one open call; null with its errno where it fails.
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
    private static void ClearNonBlocking(SafeFileHandle handle, string path, int nonBlocking)
    {
        int getFlags = OperatingSystem.IsLinux() ? Interop.LinuxConstants.F_GETFL : Interop.OSXConstants.F_GETFL;
        int setFlags = OperatingSystem.IsLinux() ? Interop.LinuxConstants.F_SETFL : Interop.OSXConstants.F_SETFL;
        int status = Interop.Libc.FcntlInt(handle, getFlags, 0);
        if (status == -1)
        {
            throw new PlatformCallException(PlatformError.LastErrno("fcntl(F_GETFL)"), path);
        }

        if ((status & nonBlocking) != 0 && Interop.Libc.FcntlInt(handle, setFlags, status & ~nonBlocking) == -1)
        {
            throw new PlatformCallException(PlatformError.LastErrno("fcntl(F_SETFL)"), path);
        }
    }

    private static Exception Refused(string path, int errno, FileKind refused)
    {
        if (refused != FileKind.Missing)
        {
            ThrowHelper.ThrowNotRegularFile(path, refused);
        }

        return OpenFailed(path, errno);
    }

    /// <summary>
    /// open's failure as the exception .NET's own open throws for it (so callers' catches stay), with the call and
    /// errno in a <see cref="PlatformCallException"/>: the exception itself, or the inner one of a not-found or
    /// access-denied exception.
    /// </summary>
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

    /// <summary>
    /// The error for a refused mmap of a file this process could open for reading: .NET's MemoryMappedFile says only
    /// "access denied" for mmap's EACCES or EPERM, so the map is tried again with mmap itself to read the errno (a sysfs
    /// file can be opened and refuse a shared mapping). Null where that mmap succeeds (its mapping is released): the
    /// framework's exception then stands.
    /// </summary>
    [SupportedOSPlatform("linux")]
    [SupportedOSPlatform("macos")]
    internal static unsafe PlatformCallException? MmapRefusal(SafeFileHandle handle, long length, string path)
    {
        if (length <= 0)
        {
            return null;
        }

        const int ProtRead = 0x1, MapShared = 0x1; // the same on Linux and macOS
        void* address = Interop.Libc.Mmap(null, (nuint)length, ProtRead, MapShared, handle, 0);
        if (address != (void*)-1)
        {
            _ = Interop.Libc.Munmap(address, (nuint)length);
            return null;
        }

        return new PlatformCallException(PlatformError.LastErrno("mmap"), path, "the file was opened for reading, and the kernel refuses to map it.");
    }
}
