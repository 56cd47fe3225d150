using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [SupportedOSPlatform("freebsd")]
        [LibraryImport(Libraries.Libc, EntryPoint = "madvise", SetLastError = true)]
        internal static partial int Madvise(void* address, nuint length, int advice);
    }
}
