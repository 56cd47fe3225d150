using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// ssize_t pread(int fd, void *buf, size_t count, off_t offset); Linux, 64-bit offset (pread64, so 32-bit
        /// processes get a 64-bit off_t too). The marshaller holds a reference on <paramref name="fd"/> for the call, so
        /// a concurrent dispose cannot close the descriptor (and let it be reused) under a read.
        /// </summary>
        /// <remarks>
        /// Linux only: macOS has pread (always 64-bit) but no pread64, and Direct I/O there would be fcntl(F_NOCACHE),
        /// which this library does not implement; macOS reads buffered through RandomAccess.
        /// </remarks>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "pread64", SetLastError = true)]
        internal static partial nint Pread(SafeHandle fd, byte* buf, nuint count, long offset);
    }
}
