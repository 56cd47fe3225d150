namespace Sharpi.Prefault;

/// <summary>Touches through the engine's mapping without a load: pwritev into a memfd, EFAULT past a file's end, never SIGBUS.</summary>
[SupportedOSPlatform("linux")]
internal sealed unsafe class MappingTouch : IDisposable
{
    internal const string Call = "pwritev";

    private const int MaxRetries = 8;

    private readonly ThreadLocal<SafeFileHandle?> _sinks = new(CreateSink, trackAllValues: true);

    private MappingTouch()
    {
    }

    /// <summary>Probed once.</summary>
    internal static bool IsAvailable => Probed.Answer.IsAvailable;

    internal static PlatformError Refusal => Probed.Answer.Error;

    /// <summary>Null where memfd_create or pwritev is refused (a seccomp profile).</summary>
    internal static MappingTouch? TryCreate() => IsAvailable ? new MappingTouch() : null;

    /// <summary>Returns <paramref name="end"/> or the first page not read, with its error. A thread without a memfd uses <see cref="SafeTouch"/>.</summary>
    internal nint Touch(nint start, nint end, nint stride, ref byte sink, out PlatformError error)
    {
        SafeFileHandle? file = _sinks.Value;
        return file is null ? SafeTouch.Touch(start, end, stride, ref sink, out error) : Write(file, start, end, stride, out error);
    }

    /// <summary>Call once no sweep thread touches.</summary>
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
        Interop.Libc.IOVector* iov = stackalloc Interop.Libc.IOVector[SafeTouch.PagesPerCall];
        nint next = start;
        while ((nuint)next < (nuint)end)
        {
            nint batchStart = next;
            int count = SafeTouch.PageVectors(iov, ref next, end, stride);

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

            // A short write stopped at the first page not faulted in; -1, at the first.
            error = PlatformError.FromErrno(Call, written < 0 ? errno : Interop.LinuxConstants.EFAULT);
            nint stopped = (nint)iov[written < 0 ? 0 : written].Base;
            return (nuint)stopped > (nuint)batchStart ? Pages.Floor(stopped) : batchStart;
        }

        return end;
    }

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

    private static class Probed
    {
        internal static readonly ProbeAnswer Answer = new(Probe(out PlatformError error), error);

        private static bool Probe(out PlatformError error)
        {
            SafeFileHandle file;
            try
            {
                file = Interop.Libc.MemfdCreate("sharpi-prefault-probe", Interop.Libc.MFD_CLOEXEC);
            }
            catch (EntryPointNotFoundException)
            {
                // glibc before 2.27: fall back as where it is refused.
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
