using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset); Linux 2.6.30+. The kernel copies
        /// each iovec from this process's own mapping (copy-from-user): a page that cannot be faulted in (past a
        /// truncated file's end) ends the write short, or with EFAULT, instead of raising SIGBUS.
        /// </summary>
        /// <remarks>The plain name, not <c>pwritev64</c>: off_t is 64-bit in every 64-bit process, and musl 1.2.4 has no <c>*64</c> names.</remarks>
        [LibraryImport(Libraries.Libc, EntryPoint = "pwritev", SetLastError = true)]
        [SupportedOSPlatform("linux")]
        internal static partial nint Pwritev(SafeHandle fd, IOVector* iov, int iovcnt, long offset);
    }
}
