using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>ssize_t pread(int fd, void *buf, size_t count, off_t offset); Linux, 64-bit offset.</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "pread", SetLastError = true)]
        internal static partial nint Pread(SafeHandle fd, byte* buf, nuint count, long offset);
    }
}
