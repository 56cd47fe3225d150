using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// ssize_t sendfile(int out_fd, int in_fd, off_t *offset, size_t count); Linux, 64-bit offset (the plain name,
        /// as <see cref="Pread"/>).
        /// </summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "sendfile", SetLastError = true)]
        internal static partial nint Sendfile(SafeHandle outFd, SafeHandle inFd, long* offset, nuint count);
    }
}
