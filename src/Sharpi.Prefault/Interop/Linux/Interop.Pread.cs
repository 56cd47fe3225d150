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
        /// The plain name: off_t is 64-bit in every 64-bit process, on glibc and musl alike, as this library's other
        /// calls that take an offset (mmap, posix_fadvise) assume; 32-bit processes are not supported. Not
        /// <c>pread64</c>: musl 1.2.4 (Alpine 3.18) dropped the <c>*64</c> names, and a missing symbol would throw.
        /// Linux only: macOS has pread (always 64-bit) but no pread64, and Direct I/O there would be fcntl(F_NOCACHE),
        /// which this library does not implement; macOS reads buffered through RandomAccess.
        /// </remarks>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "pread", SetLastError = true)]
        internal static partial nint Pread(SafeHandle fd, byte* buf, nuint count, long offset);
    }
}
