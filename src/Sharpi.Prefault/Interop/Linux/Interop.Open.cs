using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>
        /// int open(const char *pathname, int flags, mode_t mode); Linux (off_t is 64-bit on 64-bit targets, so
        /// open is open64). Variadic in C; the mode is passed as a fixed argument and ignored without O_CREAT. The descriptor
        /// comes back owned by a SafeFileHandle, invalid (-1) on failure: read the errno before disposing it.
        /// </summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "open", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial SafeFileHandle Open(string path, int flags, int mode);
    }
}
