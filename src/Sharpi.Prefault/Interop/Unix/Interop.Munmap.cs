using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [SupportedOSPlatform("freebsd")]
        [LibraryImport(Libraries.Libc, EntryPoint = "munmap", SetLastError = true)]
        internal static partial int Munmap(void* address, nuint length);
    }
}
