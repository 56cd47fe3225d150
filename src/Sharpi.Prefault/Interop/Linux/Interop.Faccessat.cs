using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>
        /// int faccessat(int dirfd, const char *pathname, int mode, int flags); Linux. With AT_EACCESS the check uses the
        /// effective ids, as the kernel's own permission checks do (glibc uses faccessat2 where the kernel has it, 5.8+).
        /// The directory is AT_FDCWD (a number, not a descriptor this process owns).
        /// </summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "faccessat", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial int Faccessat(int directoryFileDescriptor, string path, int mode, int flags);
    }
}
