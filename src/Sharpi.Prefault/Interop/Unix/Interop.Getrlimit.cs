using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>struct rlimit: rlim_t is unsigned long on Linux and a 64-bit unsigned on (64-bit only) macOS.</summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [StructLayout(LayoutKind.Sequential)]
        internal struct RLimit
        {
            internal nuint Current;
            internal nuint Maximum;
        }

        /// <summary>int getrlimit(int resource, struct rlimit *rlim); the resource numbers differ per OS (see the constants files).</summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "getrlimit", SetLastError = true)]
        internal static partial int Getrlimit(int resource, RLimit* limit);
    }
}
