using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset); Linux 2.6.30+.
        /// </summary>
        [LibraryImport(Libraries.Libc, EntryPoint = "pwritev", SetLastError = true)]
        [SupportedOSPlatform("linux")]
        internal static partial nint Pwritev(SafeHandle fd, IOVector* iov, int iovcnt, long offset);
    }
}
