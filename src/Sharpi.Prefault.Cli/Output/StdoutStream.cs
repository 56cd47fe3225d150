using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault.Cli.Output;

/// <summary>
/// File descriptor 1, written with write(2) and every error reported. .NET's console stream ignores EPIPE (a pipe whose
/// reader exited, <c>| head -1</c>), so the tool went on writing into nothing and exited 0; and it is not a FileStream,
/// which would write a redirected file with pwrite at its own offset, behind the shell's back.
/// </summary>
[SupportedOSPlatform("linux")]
[SupportedOSPlatform("macos")]
[SupportedOSPlatform("freebsd")]
internal sealed class StdoutStream : Stream
{
    private const int EINTR = 4;
    private static readonly int EAGAIN = OperatingSystem.IsLinux() ? 11 : 35; // EWOULDBLOCK too

    private const int EBADF = 9;

    /// <summary>A duplicate of fd 1 taken at start; null when fd 1 was closed (every write then fails as EBADF would).</summary>
    private readonly SafeFileHandle? _fd;

    public StdoutStream()
    {
        using var stdout = new SafeFileHandle(1, ownsHandle: false);
        int fd = Interop.Libc.Dup(stdout);
        _fd = fd >= 0 ? new SafeFileHandle(fd, ownsHandle: true) : null;
    }

    public override bool CanRead => false;

    public override bool CanSeek => false;

    public override bool CanWrite => true;

    public override long Length => throw new NotSupportedException();

    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

    public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

    public override unsafe void Write(ReadOnlySpan<byte> buffer)
    {
        while (!buffer.IsEmpty)
        {
            if (_fd is null)
            {
                throw new IOException(Marshal.GetPInvokeErrorMessage(EBADF) + " (stdout was closed when the tool started)", EBADF);
            }

            nint written;
            fixed (byte* bytes = buffer)
            {
                written = Interop.Libc.Write(_fd, bytes, (nuint)buffer.Length);
            }

            if (written >= 0)
            {
                buffer = buffer[(int)written..];
                continue;
            }

            int errno = Marshal.GetLastPInvokeError();
            if (errno == EINTR)
            {
                continue;
            }

            if (errno == EAGAIN)
            {
                // stdout shared with a process that made it non-blocking: wait for the reader rather than drop output.
                Thread.Sleep(1);
                continue;
            }

            throw new IOException(Marshal.GetPInvokeErrorMessage(errno), errno);
        }
    }

    public override void Flush()
    {
    }

    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _fd?.Dispose();
        }

        base.Dispose(disposing);
    }
}
