using System.Buffers;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

/// <summary>
/// Reads the small text files the kernel generates (/proc, /sys); never throws: a file missing, unreadable or refused
/// reads as null, since every figure read from one is optional.
/// </summary>
internal static class KernelFile
{
    /// <summary>The most bytes read from one file: far above any the library reads, below a pooled buffer's int overflow.</summary>
    internal const int MaxBytes = 256 * 1024 * 1024;

    /// <summary>The text of <paramref name="path"/>, or null where it does not exist or cannot be read.</summary>
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
            // Spares the common "not here" a first-chance exception.
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
    /// Reads the regular file <paramref name="path"/> into <paramref name="buffer"/> (pooled; grown by swapping for a larger
    /// rented one): the bytes read, or -1 where missing, refused, not regular or over <see cref="MaxBytes"/>. Never throws.
    /// </summary>
    [SupportedOSPlatform("linux")]
    internal static unsafe int TryReadAll(string path, ref byte[] buffer)
    {
        if (FileStatus.TryOf(path) is not { Kind: FileKind.Regular })
        {
            return -1;
        }

        // Checked to be a regular file; where the C library cannot tell, the cap below still ends an endless read.
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
