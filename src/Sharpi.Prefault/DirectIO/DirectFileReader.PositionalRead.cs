namespace Sharpi.Prefault;

// The read at a file offset, per OS: pread on Linux, ReadFile (through RandomAccess) elsewhere.
public sealed unsafe partial class DirectFileReader
{
    /// <summary>Reads up to <paramref name="want"/> bytes, retrying short reads: the bytes read and the OS error (0: none).</summary>
    private int Fill(byte* target, int want, long fileOffset, bool staged, out int errno)
    {
        errno = 0;
        if (staged && _simulatedErrno != 0)
        {
            errno = Interlocked.Exchange(ref _simulatedErrno, 0);
            if (errno != 0)
            {
                return 0;
            }
        }

        int done = 0;
        while (done < want)
        {
            int n;
            if (OperatingSystem.IsLinux())
            {
                n = ReadAtLinux(_handle, target + done, want - done, fileOffset + done, out errno);
            }
            else if (staged && OperatingSystem.IsWindows())
            {
                n = ReadUnbufferedAtWindows(_handle, target + done, want - done, fileOffset + done, out errno);
            }
            else
            {
                n = RandomAccess.Read(_handle, new Span<byte>(target + done, want - done), fileOffset + done);
            }

            if (errno != 0)
            {
                return done;
            }

            if (n == 0)
            {
                break;
            }

            done += n;

            // Stopping off the alignment means end of file; another read would be misaligned.
            if (staged && (done & (_offsetAlignment - 1)) != 0)
            {
                break;
            }
        }

        return done;
    }

    /// <summary>One pread, retried on EINTR: the bytes read, or 0 and the errno.</summary>
    [SupportedOSPlatform("linux")]
    private static int ReadAtLinux(SafeFileHandle handle, byte* target, int count, long fileOffset, out int errno)
    {
        while (true)
        {
            nint result = Interop.Libc.Pread(handle, target, (nuint)count, fileOffset);
            if (result >= 0)
            {
                errno = 0;
                return (int)result;
            }

            errno = Marshal.GetLastPInvokeError();
            if (errno != Interop.LinuxConstants.EINTR)
            {
                return 0;
            }
        }
    }

    /// <summary>One unbuffered ReadFile: the bytes read, or 0 and ERROR_INVALID_PARAMETER for a rejected alignment; else throws.</summary>
    [SupportedOSPlatform("windows")]
    private static int ReadUnbufferedAtWindows(SafeFileHandle handle, byte* target, int count, long fileOffset, out int error)
    {
        error = 0;
        try
        {
            return RandomAccess.Read(handle, new Span<byte>(target, count), fileOffset);
        }
        catch (IOException e) when ((e.HResult & 0xFFFF) == Interop.Kernel32.ERROR_INVALID_PARAMETER)
        {
            error = Interop.Kernel32.ERROR_INVALID_PARAMETER;
            return 0;
        }
    }
}
