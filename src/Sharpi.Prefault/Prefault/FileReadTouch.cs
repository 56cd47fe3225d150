using System.Buffers;

namespace Sharpi.Prefault;

/// <summary>The Linux touch by read calls where seccomp refuses <c>process_vm_readv</c>: it reads no mapped byte, so no SIGBUS.</summary>
[SupportedOSPlatform("linux")]
internal sealed unsafe class FileReadTouch(ProcMapEntry[] maps)
{
    private const int ReadBytes = 256 * 1024;
    private const string OwnMemoryPath = "/proc/self/mem";

    /// <summary>Brings in [start, end); returns <paramref name="end"/>, or the first page it could not bring in, and why.</summary>
    internal nint Touch(nint start, nint end, out PlatformError error, out string? why)
    {
        error = PlatformError.None;
        why = null;
        foreach (MapPiece piece in ProcMaps.Pieces(maps, start, end))
        {
            if (piece.IsGap)
            {
                why = "not mapped: the range has no mapping in /proc/self/maps";
                return piece.Start;
            }

            ProcMapEntry m = maps[piece.Index];
            nint reached = m.Inode == 0 && !m.Shared
                ? ReadOwnMemory(piece.Start, piece.End, out error, out why)
                : ReadFile(m, piece.Start, piece.End, out error, out why);
            if (reached != piece.End)
            {
                return reached;
            }
        }

        return end;
    }

    /// <summary>Reads the file bytes behind [from, to) of <paramref name="m"/>; returns where it stopped.</summary>
    private static nint ReadFile(ProcMapEntry m, nint from, nint to, out PlatformError error, out string? why)
    {
        error = PlatformError.None;
        why = null;
        using SafeFileHandle? file = m is { IsFileBacked: true, IsDeleted: false } ? FileCacheProbe.OpenIfSameFile(m.Path, m.Inode) : null;
        if (file is null)
        {
            why = $"not touched: '{m.Path}' cannot be opened again as the mapped file (deleted, shared memory, a device, or renamed over), "
                + "so its length cannot be checked, and without process_vm_readv a read past its end would be fatal (SIGBUS)";
            return from;
        }

        long fileFrom = m.Offset + (Pages.Floor(from) - m.Start);
        long fileTo = m.Offset + (to - m.Start);
        byte[] buffer = ArrayPool<byte>.Shared.Rent(ReadBytes);
        try
        {
            fixed (byte* scratch = buffer)
            {
                for (long at = fileFrom; at < fileTo;)
                {
                    int want = (int)Math.Min(ReadBytes, fileTo - at);
                    nint read = Interop.Libc.Pread(file, scratch, (nuint)want, at);
                    if (read < 0)
                    {
                        int errno = Marshal.GetLastPInvokeError();
                        if (errno == Interop.LinuxConstants.EINTR)
                        {
                            continue;
                        }

                        error = PlatformError.FromErrno("pread", errno);
                        return Reached(m, at, from);
                    }

                    if (read == 0)
                    {
                        // The end of the file: the page holding its last byte reads (zero-filled), none after.
                        nint reached = Reached(m, Pages.Ceiling(at), from);
                        if ((nuint)reached >= (nuint)to)
                        {
                            return to;
                        }

                        why = $"pages past the end of the mapped file (truncated?): '{m.Path}' is {LengthNow(file, at):N0} bytes now, "
                            + $"nothing at offset {at:N0}; read through the file (process_vm_readv is refused here), so nothing faulted";
                        return reached;
                    }

                    at += read;
                }
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }

        return to;
    }

    /// <summary>Reads [from, to) of private anonymous memory through /proc/self/mem; returns where it stopped.</summary>
    private static nint ReadOwnMemory(nint from, nint to, out PlatformError error, out string? why)
    {
        error = PlatformError.None;
        why = null;
        SafeFileHandle memory;
        try
        {
            memory = File.OpenHandle(OwnMemoryPath, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            why = $"not touched: memory of no file is read through {OwnMemoryPath} where process_vm_readv is refused, and it cannot be "
                + $"opened here ({e.Message}); a plain load of memory that another thread may unmap meanwhile would be fatal (SIGSEGV)";
            return from;
        }

        using (memory)
        {
            byte[] buffer = ArrayPool<byte>.Shared.Rent(ReadBytes);
            try
            {
                fixed (byte* scratch = buffer)
                {
                    for (nint at = Pages.Floor(from); (nuint)at < (nuint)to;)
                    {
                        int want = (int)Math.Min(ReadBytes, (long)(nuint)(to - at));
                        nint read = Interop.Libc.Pread(memory, scratch, (nuint)want, (long)(nuint)at);
                        if (read > 0)
                        {
                            at += read;
                            continue;
                        }

                        int errno = read < 0 ? Marshal.GetLastPInvokeError() : Interop.LinuxConstants.EIO;
                        if (errno == Interop.LinuxConstants.EINTR)
                        {
                            continue;
                        }

                        error = PlatformError.FromErrno("pread", errno);
                        why = $"not readable: the kernel could not fault this memory in (unmapped while the sweep ran, or a special mapping "
                            + $"such as [vvar] with no page behind it); read through {OwnMemoryPath} (process_vm_readv is refused here), so nothing faulted";
                        nint stopped = Pages.Floor(at);
                        return (nuint)stopped > (nuint)from ? stopped : from;
                    }
                }
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }

        return to;
    }

    /// <summary>The file's length now, at most <paramref name="atMost"/>.</summary>
    private static long LengthNow(SafeFileHandle file, long atMost)
    {
        try
        {
            return Math.Min(RandomAccess.GetLength(file), atMost);
        }
        catch (IOException)
        {
            return atMost;
        }
    }

    /// <summary>The address of file offset <paramref name="offset"/> in mapping <paramref name="m"/>, not before <paramref name="from"/>.</summary>
    private static nint Reached(ProcMapEntry m, long offset, nint from)
    {
        nint address = m.Start + (nint)(offset - m.Offset);
        return (nuint)address > (nuint)from ? address : from;
    }
}
