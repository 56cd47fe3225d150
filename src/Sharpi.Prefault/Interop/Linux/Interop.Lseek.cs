using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>
        /// off_t lseek(int fd, off_t offset, int whence); Linux, 64-bit offset (<c>lseek</c> or <c>lseek64</c>, as
        /// <see cref="Pread"/> chooses), for <c>SEEK_DATA</c>/<c>SEEK_HOLE</c> (the constants differ on macOS, which this
        /// library does not ask).
        /// </summary>
        [SupportedOSPlatform("linux")]
        internal static long Lseek(SafeHandle fd, long offset, int whence) =>
            LargeFileNames.Use64 ? Lseek64Import(fd, offset, whence) : LseekImport(fd, offset, whence);

        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "lseek", SetLastError = true)]
        private static partial long LseekImport(SafeHandle fd, long offset, int whence);

        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "lseek64", SetLastError = true)]
        private static partial long Lseek64Import(SafeHandle fd, long offset, int whence);
    }
}
