using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>
        /// off_t lseek(int fd, off_t offset, int whence); Linux, 64-bit offset (the plain name, as <see cref="Pread"/>),
        /// for <c>SEEK_DATA</c>/<c>SEEK_HOLE</c> (the constants differ on macOS, which this library does not ask).
        /// </summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "lseek", SetLastError = true)]
        internal static partial long Lseek(SafeHandle fd, long offset, int whence);
    }
}
