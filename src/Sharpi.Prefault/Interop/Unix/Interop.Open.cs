using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>
        /// int open(const char *pathname, int flags, mode_t mode); Linux and macOS (off_t is 64-bit on the 64-bit
        /// targets, so open is open64).
        /// </summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "open", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial SafeFileHandle Open(string path, int flags, int mode);
    }
}
