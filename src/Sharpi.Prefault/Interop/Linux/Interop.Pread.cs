using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// ssize_t pread(int fd, void *buf, size_t count, off_t offset); Linux, 64-bit offset. The marshaller holds a
        /// reference on <paramref name="fd"/> for the call, so a concurrent dispose cannot close the descriptor (and let
        /// it be reused) under a read.
        /// </summary>
        /// <remarks>
        /// <c>pread</c> where off_t is 64-bit (every 64-bit process, and musl everywhere); <c>pread64</c> for a 32-bit
        /// glibc process. Not <c>pread64</c> everywhere: musl 1.2.4 (Alpine 3.18) dropped the <c>*64</c> names, and a
        /// missing symbol would throw into the engine. Linux only: macOS has pread (always 64-bit) but no pread64, and
        /// Direct I/O there would be fcntl(F_NOCACHE), which this library does not implement; macOS reads buffered
        /// through RandomAccess.
        /// </remarks>
        [SupportedOSPlatform("linux")]
        internal static nint Pread(SafeHandle fd, byte* buf, nuint count, long offset) =>
            LargeFileNames.Use64 ? Pread64Import(fd, buf, count, offset) : PreadImport(fd, buf, count, offset);

        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "pread", SetLastError = true)]
        private static partial nint PreadImport(SafeHandle fd, byte* buf, nuint count, long offset);

        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "pread64", SetLastError = true)]
        private static partial nint Pread64Import(SafeHandle fd, byte* buf, nuint count, long offset);
    }
}
