using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>uid_t geteuid(void); never fails.</summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [SupportedOSPlatform("freebsd")]
        [LibraryImport(Libraries.Libc, EntryPoint = "geteuid")]
        internal static partial uint Geteuid();
    }
}
