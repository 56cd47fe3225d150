using System.Buffers;
using System.Numerics;

namespace Sharpi.Prefault;

/// <summary>An open file and how to read it: mode, alignment, and why buffered.</summary>
internal readonly record struct OpenedFile(SafeFileHandle Handle, DirectReadMode Mode, int OffsetAlignment, int MemoryAlignment,
    string AlignmentSource, string? FallbackReason);

/// <summary>Opens a file past the page cache where the OS and file system allow it, buffered otherwise.</summary>
internal static class DirectFileOpener
{
    /// <summary>Where the OS reports no alignment: 512-byte and 4 KiB blocks both divide it.</summary>
    internal const int SafeAlignment = 4096;

    /// <exception cref="IOException">
    /// A FIFO, directory, socket or device (refused before an open that could block), or a procfs file (its size reads 0).
    /// </exception>
    internal static OpenedFile Open(string path, bool useDirectIO)
    {
        FileStatus.ThrowIfNotRegular(path);
        OpenedFile opened = OpenRegular(path, useDirectIO);
        if (OperatingSystem.IsLinux() && IsEmptyLookingProcFile(opened.Handle))
        {
            opened.Handle.Dispose();
            ThrowHelper.ThrowPseudoFile(path);
        }

        return opened;
    }

    private static OpenedFile OpenRegular(string path, bool useDirectIO)
    {
        if (!useDirectIO)
        {
            return OpenBuffered(path, "Direct I/O is switched off (DirectReadOptions.IsDirectIOEnabled is false)");
        }

        if (OperatingSystem.IsLinux())
        {
            return OpenLinux(path);
        }

        if (OperatingSystem.IsWindows())
        {
            return OpenWindows(path);
        }

        return OpenBuffered(path, $"Direct I/O is implemented for Linux and Windows; {RuntimeInformation.OSDescription} reads buffered");
    }

    internal static OpenedFile OpenBuffered(string path, string reason) =>
        new(FileOpener.OpenRead(path, share: FileShare.Read | FileShare.Delete), DirectReadMode.Buffered, 1, 1, "buffered", reason);

    [SupportedOSPlatform("linux")]
    private static unsafe OpenedFile OpenLinux(string path)
    {
        int oDirect = Interop.LinuxConstants.O_DIRECT;
        if (oDirect == 0)
        {
            return OpenBuffered(path, $"this library does not know O_DIRECT's value on {RuntimeInformation.ProcessArchitecture}");
        }

        SafeFileHandle? handle = FileOpener.TryOpenDirect(path, oDirect, out int errno);
        if (handle is null)
        {
            // EINVAL: O_DIRECT refused; other errors the buffered open throws as usual.
            return OpenBuffered(path, errno == Interop.LinuxConstants.EINVAL
                ? $"the filesystem refuses O_DIRECT (open: {Errno.Describe(errno)})"
                : $"open with O_DIRECT failed: {Errno.Describe(errno)}");
        }

        string? refusal;
        int offsetAlignment, memoryAlignment;
        string source;
        try
        {
            refusal = InMemoryFilesystem(handle);
            (offsetAlignment, memoryAlignment, source, string? statxRefusal) = QueryAlignment(handle);
            refusal ??= statxRefusal;
            refusal ??= ReadThroughTheCache(handle);
        }
        catch
        {
            handle.Dispose();
            throw;
        }

        if (refusal is not null)
        {
            handle.Dispose();
            return OpenBuffered(path, refusal);
        }

        return new OpenedFile(handle, DirectReadMode.Direct, offsetAlignment, memoryAlignment, source, null);
    }

    /// <summary>A procfs file, whose size reads 0 whatever it holds.</summary>
    [SupportedOSPlatform("linux")]
    private static unsafe bool IsEmptyLookingProcFile(SafeFileHandle handle)
    {
        Interop.Libc.StatfsBuffer fs;
        return Interop.Libc.Fstatfs(handle, &fs) == 0 && fs.Type == Interop.LinuxConstants.PROC_SUPER_MAGIC && RandomAccess.GetLength(handle) == 0;
    }

    /// <summary>tmpfs or ramfs, cached even under O_DIRECT: a Direct read only adds a copy.</summary>
    [SupportedOSPlatform("linux")]
    private static unsafe string? InMemoryFilesystem(SafeFileHandle handle)
    {
        Interop.Libc.StatfsBuffer fs;
        if (Interop.Libc.Fstatfs(handle, &fs) != 0)
        {
            return null;
        }

        return fs.Type switch
        {
            Interop.LinuxConstants.TMPFS_MAGIC => "the file is on tmpfs, which keeps it in memory: there is no page cache to bypass",
            Interop.LinuxConstants.RAMFS_MAGIC => "the file is on ramfs, which keeps it in memory: there is no page cache to bypass",
            _ => null,
        };
    }

    /// <summary>Why a btrfs file reads through the cache even under O_DIRECT; null where it does not.</summary>
    [SupportedOSPlatform("linux")]
    private static unsafe string? ReadThroughTheCache(SafeFileHandle handle)
    {
        Interop.Libc.StatfsBuffer fs;
        if (Interop.Libc.Fstatfs(handle, &fs) != 0 || fs.Type != Interop.LinuxConstants.BTRFS_SUPER_MAGIC)
        {
            return null;
        }

        long length = RandomAccess.GetLength(handle);
        return FirstEncodedExtent(handle, length) is long offset
            ? $"btrfs stores this file compressed or inline, in part or whole (FIEMAP: an encoded extent at offset {offset}), and reads such extents "
              + "through the page cache even with O_DIRECT: Direct I/O would bypass nothing there. A copy written with compression off "
              + "(btrfs property set FILE compression none, or chattr +m on a new empty file, before writing it) reads Direct"
            : null;
    }

    /// <summary>The offset of the first encoded or inline extent (FIEMAP); null where none or refused.</summary>
    [SupportedOSPlatform("linux")]
    private static unsafe long? FirstEncodedExtent(SafeFileHandle handle, long length)
    {
        const int Extents = 256;
        int size = sizeof(Interop.Libc.Fiemap) + (Extents * sizeof(Interop.Libc.FiemapExtent));
        byte[] buffer = ArrayPool<byte>.Shared.Rent(size);
        try
        {
            fixed (byte* memory = buffer)
            {
                var map = (Interop.Libc.Fiemap*)memory;
                var extents = (Interop.Libc.FiemapExtent*)(memory + sizeof(Interop.Libc.Fiemap));
                for (ulong at = 0; at < (ulong)length;)
                {
                    *map = new Interop.Libc.Fiemap { Start = at, Length = (ulong)length - at, ExtentCount = Extents };
                    if (Interop.Libc.IoctlFiemap(handle, Interop.Libc.FS_IOC_FIEMAP, map) != 0 || map->MappedExtents == 0)
                    {
                        return null;
                    }

                    for (uint i = 0; i < map->MappedExtents; i++)
                    {
                        Interop.Libc.FiemapExtent e = extents[i];
                        if ((e.Flags & (Interop.LinuxConstants.FIEMAP_EXTENT_ENCODED | Interop.LinuxConstants.FIEMAP_EXTENT_DATA_INLINE)) != 0)
                        {
                            return (long)e.Logical;
                        }

                        if ((e.Flags & Interop.LinuxConstants.FIEMAP_EXTENT_LAST) != 0)
                        {
                            return null;
                        }
                    }

                    Interop.Libc.FiemapExtent last = extents[map->MappedExtents - 1];
                    ulong next = last.Logical + last.Length;
                    if (next <= at)
                    {
                        return null; // no progress: a file system answering oddly
                    }

                    at = next;
                }

                return null;
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <summary>The Direct I/O alignment from statx(STATX_DIOALIGN), Linux 6.1+; else 4096.</summary>
    [SupportedOSPlatform("linux")]
    private static unsafe (int Offset, int Memory, string Source, string? Refusal) QueryAlignment(SafeFileHandle handle)
    {
        const string Fallback = "4096, the safe default: statx reports no Direct I/O alignment here";
        Interop.Libc.StatxBuffer stx;
        int result;
        try
        {
            result = Interop.Libc.Statx(handle, string.Empty, Interop.LinuxConstants.AT_EMPTY_PATH,
                Interop.LinuxConstants.STATX_TYPE | Interop.LinuxConstants.STATX_DIOALIGN, &stx);
        }
        catch (EntryPointNotFoundException)
        {
            // No statx in the C library (glibc < 2.28, musl < 1.2.5).
            return (SafeAlignment, SafeAlignment, Fallback, null);
        }

        if (result != 0)
        {
            return (SafeAlignment, SafeAlignment, Fallback, null);
        }

        if ((stx.Mask & Interop.LinuxConstants.STATX_TYPE) != 0 && (stx.Mode & Interop.LinuxConstants.S_IFMT) != Interop.LinuxConstants.S_IFREG)
        {
            return (SafeAlignment, SafeAlignment, Fallback, "not a regular file");
        }

        if ((stx.Mask & Interop.LinuxConstants.STATX_DIOALIGN) == 0)
        {
            return (SafeAlignment, SafeAlignment, Fallback, null);
        }

        if (stx.DioOffsetAlign == 0 || stx.DioMemAlign == 0)
        {
            return (SafeAlignment, SafeAlignment, Fallback, "the filesystem reports no Direct I/O support for this file (statx STATX_DIOALIGN is 0)");
        }

        if (!BitOperations.IsPow2(stx.DioOffsetAlign) || !BitOperations.IsPow2(stx.DioMemAlign) || stx.DioOffsetAlign > DirectReadOptions.MinBlockSize)
        {
            // Not seen in practice; 4096 is safer than trusting it (a misaligned read falls back).
            return (SafeAlignment, SafeAlignment, Fallback, null);
        }

        return ((int)stx.DioOffsetAlign, (int)stx.DioMemAlign, "statx STATX_DIOALIGN", null);
    }

    [SupportedOSPlatform("windows")]
    private static OpenedFile OpenWindows(string path)
    {
        SafeFileHandle handle = Interop.Kernel32.CreateFile(Path.GetFullPath(path), Interop.Kernel32.GENERIC_READ,
            Interop.Kernel32.FILE_SHARE_READ | Interop.Kernel32.FILE_SHARE_DELETE, 0, Interop.Kernel32.OPEN_EXISTING,
            Interop.Kernel32.FILE_FLAG_NO_BUFFERING, 0);
        if (handle.IsInvalid)
        {
            int error = Marshal.GetLastPInvokeError();
            handle.Dispose();
            return OpenBuffered(path, $"CreateFileW with FILE_FLAG_NO_BUFFERING failed: error {error} ({Marshal.GetPInvokeErrorMessage(error)})");
        }

        // Sectors are 512 bytes or 4 KiB; 4096 alignment satisfies both.
        return new OpenedFile(handle, DirectReadMode.Direct, SafeAlignment, SafeAlignment, "4096, a multiple of 512-byte and 4 KiB sectors", null);
    }
}
