using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [SupportedOSPlatform("freebsd")]
        [LibraryImport(Libraries.Libc, EntryPoint = "mincore", SetLastError = true)]
        internal static partial int Mincore(void* address, nuint length, byte* vector);
    }
}
