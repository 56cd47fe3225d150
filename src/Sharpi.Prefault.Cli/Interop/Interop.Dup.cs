using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Cli;

internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>
        /// int dup(int oldfd); Linux and macOS. stdout is written through a duplicate taken at start, as .NET's console
        /// does: when fd 1 was closed (<c>&gt;&amp;-</c>), a file the tool opens later may be given number 1, and must not
        /// receive stdout's lines.
        /// </summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [SupportedOSPlatform("freebsd")]
        [LibraryImport("libc", EntryPoint = "dup", SetLastError = true)]
        internal static partial int Dup(SafeHandle fileDescriptor);
    }
}
