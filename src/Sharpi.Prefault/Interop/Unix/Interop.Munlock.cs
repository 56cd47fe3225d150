using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>int munlock(const void *addr, size_t len); Linux and macOS.</summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "munlock", SetLastError = true)]
        internal static partial int Munlock(void* address, nuint length);
    }
}
