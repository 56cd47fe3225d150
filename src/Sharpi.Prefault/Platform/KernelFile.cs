using System.Buffers;
using System.Text;

namespace Sharpi.Prefault;

/// <summary>Reads kernel text files (/proc, /sys); never throws: missing, unreadable or refused reads as null.</summary>
internal static class KernelFile
{
    /// <summary>Far above any file read, below a pooled buffer's int overflow.</summary>
    internal const int MaxBytes = 256 * 1024 * 1024;

    /// <summary>The text, or null where missing or unreadable.</summary>
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
            // Spares "not here" a first-chance exception.
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
    /// Reads a regular file into <paramref name="buffer"/> (pooled, swapped for a larger one as needed): the bytes read, or
    /// -1 where missing, refused, not regular or over <see cref="MaxBytes"/>. Never throws.
    /// </summary>
    [SupportedOSPlatform("linux")]
    internal static unsafe int TryReadAll(string path, ref byte[] buffer)
    {
        if (FileStatus.TryOf(path) is not { Kind: FileKind.Regular })
        {
            return -1;
        }

        // Checked regular; where the C library cannot tell, the cap ends an endless read.
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
