using System.Runtime.InteropServices;

namespace Sharpi.Prefault;

/// <summary>The read at a file offset, per OS: pread on Linux, ReadFile (through RandomAccess) elsewhere.</summary>
public sealed unsafe partial class DirectFileReader
{
    /// <summary>
    /// Reads up to <paramref name="want"/> bytes at <paramref name="fileOffset"/>, retrying short reads. Returns the
    /// bytes read (fewer at the end of the file) and the OS error, 0 when none.
    /// </summary>
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
                nint result = Interop.Libc.Pread((int)_handle.DangerousGetHandle(), target + done, (nuint)(want - done), fileOffset + done);
                if (result < 0)
                {
                    int error = Marshal.GetLastPInvokeError();
                    if (error == Interop.LinuxConstants.EINTR)
                    {
                        continue;
                    }

                    errno = error;
                    return done;
                }

                n = (int)result;
            }
            else if (staged && OperatingSystem.IsWindows())
            {
                try
                {
                    n = RandomAccess.Read(_handle, new Span<byte>(target + done, want - done), fileOffset + done);
                }
                catch (IOException e) when ((e.HResult & 0xFFFF) == Interop.Kernel32.ERROR_INVALID_PARAMETER)
                {
                    errno = Interop.Kernel32.ERROR_INVALID_PARAMETER;
                    return done;
                }
            }
            else
            {
                n = RandomAccess.Read(_handle, new Span<byte>(target + done, want - done), fileOffset + done);
            }

            if (n == 0)
            {
                break;
            }

            done += n;

            // A Direct read that stops off the alignment stopped at the end of the file; another would be misaligned.
            if (staged && (done & (_offsetAlignment - 1)) != 0)
            {
                break;
            }
        }

        return done;
    }
}
