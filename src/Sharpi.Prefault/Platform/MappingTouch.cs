using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

/// <summary>
/// Reads one byte of every page (or of every stride's page) through this process's own user mapping, the access an
/// engine's first request would make, without a load: the bytes are written with <c>pwritev</c> into a small memfd
/// of the calling thread's, and the kernel copies them from user memory. A page past a truncated file's end ends the
/// write short with EFAULT, never a SIGBUS. <see cref="SafeTouch"/> reads through the kernel's own mapping instead,
/// which leaves a host that shadows the guest's page tables to charge the engine's first access.
/// </summary>
/// <remarks>
/// Each thread writes at most <see cref="PagesPerCall"/> bytes at offset 0 of its own memfd, so the file never holds
/// more than one page, and no two threads share a file's lock. The descriptors close with <see cref="Dispose"/>.
/// </remarks>
[SupportedOSPlatform("linux")]
internal sealed unsafe class MappingTouch : IDisposable
{
    /// <summary>The call a failure names.</summary>
    internal const string Call = "pwritev";

    /// <summary>UIO_MAXIOV: the most iovecs one pwritev takes.</summary>
    private const int PagesPerCall = 1024;

    private const int MaxRetries = 8;

    private readonly ThreadLocal<SafeFileHandle?> _sinks = new(CreateSink, trackAllValues: true);

    private MappingTouch()
    {
    }

    /// <summary>Whether this process may create a memfd and write into it from its own memory (probed once).</summary>
    internal static bool IsAvailable => Probed.IsAvailable;

    /// <summary>Why it may not (the call refused and its errno); <see cref="PlatformError.None"/> where it may.</summary>
    internal static PlatformError Refusal => Probed.Refusal;

    /// <summary>A touch for one sweep, or null where memfd_create or pwritev is refused (a seccomp profile): see <see cref="Refusal"/>.</summary>
    internal static MappingTouch? TryCreate() => IsAvailable ? new MappingTouch() : null;

    /// <summary>
    /// Touches one page every <paramref name="stride"/> bytes of [<paramref name="start"/>, <paramref name="end"/>)
    /// (the page at <paramref name="start"/>, then every stride from its page) through the mapping, and returns where
    /// it stopped: <paramref name="end"/>, or the start of the first touched page that could not be read (with the
    /// call and its errno). A thread whose memfd could not be made (no descriptor left) touches through
    /// <see cref="SafeTouch"/>. Allocates nothing after a thread's first call; no locks.
    /// </summary>
    internal nint Touch(nint start, nint end, nint stride, ref byte sink, out PlatformError error)
    {
        SafeFileHandle? file = _sinks.Value;
        return file is null ? SafeTouch.Touch(start, end, stride, ref sink, out error) : Write(file, start, end, stride, out error);
    }

    /// <summary>Closes every thread's memfd: once no sweep thread touches any more.</summary>
    public void Dispose()
    {
        foreach (SafeFileHandle? file in _sinks.Values)
        {
            file?.Dispose();
        }

        _sinks.Dispose();
    }

    private static nint Write(SafeFileHandle file, nint start, nint end, nint stride, out PlatformError error)
    {
        error = PlatformError.None;
        Interop.Libc.IOVector* iov = stackalloc Interop.Libc.IOVector[PagesPerCall];
        nint next = start;
        while ((nuint)next < (nuint)end)
        {
            int count = 0;
            nint batchStart = next;
            for (; count < PagesPerCall && (nuint)next < (nuint)end; count++)
            {
                iov[count].Base = (void*)next;
                iov[count].Count = 1;
                next = Pages.Floor(next) + stride;
            }

            nint written;
            int errno = 0;
            for (int attempt = 0; ; attempt++)
            {
                written = Interop.Libc.Pwritev(file, iov, count, 0);
                errno = written < 0 ? Marshal.GetLastPInvokeError() : 0;
                if (errno != Interop.LinuxConstants.EINTR || attempt >= MaxRetries)
                {
                    break;
                }
            }

            if (written == count)
            {
                continue;
            }

            // One byte an iovec: a short write stopped at the first page the kernel could not fault in; -1, the first.
            error = PlatformError.FromErrno(Call, written < 0 ? errno : Interop.LinuxConstants.EFAULT);
            nint stopped = (nint)iov[written < 0 ? 0 : written].Base;
            return (nuint)stopped > (nuint)batchStart ? Pages.Floor(stopped) : batchStart;
        }

        return end;
    }

    /// <summary>A thread's memfd; null where none could be made.</summary>
    private static SafeFileHandle? CreateSink()
    {
        SafeFileHandle file = Interop.Libc.MemfdCreate("sharpi-prefault-touch", Interop.Libc.MFD_CLOEXEC);
        if (!file.IsInvalid)
        {
            return file;
        }

        file.Dispose();
        return null;
    }

    /// <summary>The probe, run once by the runtime's class constructor: a memfd made, written from this thread's stack, and closed.</summary>
    private static class Probed
    {
        internal static readonly bool IsAvailable;
        internal static readonly PlatformError Refusal;

#pragma warning disable CA1810 // both fields come from one probe
        static Probed() => IsAvailable = Probe(out Refusal);
#pragma warning restore CA1810

        private static bool Probe(out PlatformError error)
        {
            SafeFileHandle file;
            try
            {
                file = Interop.Libc.MemfdCreate("sharpi-prefault-probe", Interop.Libc.MFD_CLOEXEC);
            }
            catch (EntryPointNotFoundException)
            {
                // A C library older than glibc 2.27 has no memfd_create: the touch falls back as where it is refused.
                error = PlatformError.FromErrno("memfd_create", Interop.LinuxConstants.ENOSYS);
                return false;
            }

            using SafeFileHandle owned = file;
            if (file.IsInvalid)
            {
                error = PlatformError.LastErrno("memfd_create");
                return false;
            }

            byte probe = 1;
            return Write(file, (nint)(&probe), (nint)(&probe) + 1, Pages.Size, out error) == (nint)(&probe) + 1;
        }
    }
}
