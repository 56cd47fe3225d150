using System.Buffers;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

/// <summary>
/// Reads the small text files the kernel generates (/proc, /sys): a file that is missing, unreadable or refused reads
/// as null, never as an exception, since every figure read from one is optional (an unknown figure never blocks).
/// </summary>
internal static class KernelFile
{
    /// <summary>
    /// The most bytes read from one file: far above any /proc or /sys file the library reads (the smaps of a process
    /// with 30,000 mappings is about 21 MiB), and below the pooled buffer's doubling overflowing an int.
    /// </summary>
    internal const int MaxBytes = 256 * 1024 * 1024;

    /// <summary>The whole text of <paramref name="path"/>, or null where it does not exist or cannot be read.</summary>
    internal static string? TryReadText(string path)
    {
        if (OperatingSystem.IsLinux())
        {
            byte[] buffer = ArrayPool<byte>.Shared.Rent(4096);
            try
            {
                int length = TryReadAll(path, ref buffer);
                return length < 0 ? null : Encoding.UTF8.GetString(buffer, 0, length);
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }

        try
        {
            // The check keeps the common "not here" from throwing, and so from costing a first-chance exception per file.
            return FileStatus.TryOf(path) is { Kind: FileKind.Regular } ? File.ReadAllText(path) : null;
        }
        catch (IOException)
        {
            return null;
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>
    /// Reads all of the regular file <paramref name="path"/> into <paramref name="buffer"/> (rented from
    /// <see cref="ArrayPool{T}.Shared"/>; where the file does not fit, a larger rented one takes its place and the
    /// smaller goes back): the bytes read, or -1 where the path is missing, refused, no regular file or over
    /// <see cref="MaxBytes"/>. Never throws.
    /// </summary>
    [SupportedOSPlatform("linux")]
    internal static unsafe int TryReadAll(string path, ref byte[] buffer)
    {
        if (FileStatus.TryOf(path) is not { Kind: FileKind.Regular })
        {
            return -1;
        }

        // The descriptor is checked to be a regular file (where the C library cannot tell, the cap below still ends a
        // read that would not).
        using SafeFileHandle? file = FileOpener.TryOpenRead(path, out _);
        if (file is null)
        {
            return -1;
        }

        int length = 0;
        while (true)
        {
            if (length == buffer.Length)
            {
                if (buffer.Length >= MaxBytes)
                {
                    return -1;
                }

                byte[] larger = ArrayPool<byte>.Shared.Rent(buffer.Length * 2);
                buffer.AsSpan(0, length).CopyTo(larger);
                ArrayPool<byte>.Shared.Return(buffer);
                buffer = larger;
            }

            nint read;
            fixed (byte* target = buffer)
            {
                read = Interop.Libc.Pread(file, target + length, (nuint)(buffer.Length - length), length);
            }

            if (read == 0)
            {
                return length;
            }

            if (read < 0)
            {
                if (Marshal.GetLastPInvokeError() == Interop.LinuxConstants.EINTR)
                {
                    continue;
                }

                return -1;
            }

            length += (int)read;
        }
    }
}
