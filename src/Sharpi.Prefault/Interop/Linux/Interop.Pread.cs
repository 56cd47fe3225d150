using System.Runtime.InteropServices;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>ssize_t pread(int fd, void *buf, size_t count, off_t offset); Linux, 64-bit offset.</summary>
        [LibraryImport(Libraries.Libc, EntryPoint = "pread64", SetLastError = true)]
        internal static partial nint Pread(int fileDescriptor, void* buffer, nuint count, long offset);
    }
}
