using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// ssize_t sendfile(int out_fd, int in_fd, off_t *offset, size_t count); Linux, 64-bit offset (<c>sendfile</c> or
        /// <c>sendfile64</c>, as <see cref="Pread"/> chooses). With
        /// /dev/null as <paramref name="outFd"/> the kernel reads the file's pages into the page cache and hands them to
        /// a sink that copies nothing: the warm-up's read, without a user buffer. <paramref name="offset"/> is advanced
        /// by the bytes sent; the file position of <paramref name="inFd"/> is left alone.
        /// </summary>
        [SupportedOSPlatform("linux")]
        internal static nint Sendfile(SafeHandle outFd, SafeHandle inFd, long* offset, nuint count) =>
            LargeFileNames.Use64 ? Sendfile64Import(outFd, inFd, offset, count) : SendfileImport(outFd, inFd, offset, count);

        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "sendfile", SetLastError = true)]
        private static partial nint SendfileImport(SafeHandle outFd, SafeHandle inFd, long* offset, nuint count);

        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "sendfile64", SetLastError = true)]
        private static partial nint Sendfile64Import(SafeHandle outFd, SafeHandle inFd, long* offset, nuint count);
    }
}
