using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>
        /// int posix_fadvise(int fd, off_t offset, off_t len, int advice); Linux (64-bit off_t). Returns the error
        /// number itself and leaves errno alone.
        /// </summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "posix_fadvise")]
        internal static partial int PosixFadvise(SafeHandle fileDescriptor, long offset, long length, int advice);
    }
}
