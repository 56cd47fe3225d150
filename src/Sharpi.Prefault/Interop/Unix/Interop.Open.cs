using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>
        /// int open(const char *pathname, int flags, mode_t mode); Linux and macOS (off_t is 64-bit on the 64-bit
        /// targets, so open is open64). Variadic in C; the mode is passed as a fixed argument and read only with
        /// O_CREAT, which no caller passes (on macOS arm64 a variadic argument would travel on the stack). The
        /// descriptor comes back owned by a SafeFileHandle, invalid (-1) on failure: read the errno before disposing it.
        /// Flag values differ per OS (LinuxConstants, OSXConstants).
        /// </summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "open", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial SafeFileHandle Open(string path, int flags, int mode);
    }
}
