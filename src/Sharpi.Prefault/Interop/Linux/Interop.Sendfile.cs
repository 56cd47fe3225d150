using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// ssize_t sendfile(int out_fd, int in_fd, off_t *offset, size_t count); Linux, 64-bit offset (the plain name, as
        /// <see cref="Pread"/>). With
        /// /dev/null as <paramref name="outFd"/> the kernel reads the file's pages into the page cache and hands them to
        /// a sink that copies nothing: the warm-up's read, without a user buffer. <paramref name="offset"/> is advanced
        /// by the bytes sent; the file position of <paramref name="inFd"/> is left alone.
        /// </summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "sendfile", SetLastError = true)]
        internal static partial nint Sendfile(SafeHandle outFd, SafeHandle inFd, long* offset, nuint count);
    }
}
