using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset); off_t is 64-bit on the
        /// 64-bit targets this library ships for. Returns MAP_FAILED ((void*)-1) with errno set on failure.
        /// </summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [SupportedOSPlatform("freebsd")]
        [LibraryImport(Libraries.Libc, EntryPoint = "mmap", SetLastError = true)]
        internal static partial void* Mmap(void* address, nuint length, int protection, int flags, SafeHandle fileDescriptor, long offset);
    }
}
