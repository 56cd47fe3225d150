using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        [LibraryImport(Libraries.Libc, EntryPoint = "pwritev", SetLastError = true)]
        [SupportedOSPlatform("linux")]
        internal static partial nint Pwritev(SafeHandle fd, IOVector* iov, int iovcnt, long offset);
    }
}
