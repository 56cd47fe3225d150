using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Cli;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// ssize_t write(int fd, const void *buf, size_t count); Linux and macOS. stdout is written with it rather than
        /// through Console.Out, which drops EPIPE without a word (a reader that went away looked like success).
        /// </summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [SupportedOSPlatform("freebsd")]
        [LibraryImport("libc", EntryPoint = "write", SetLastError = true)]
        internal static partial nint Write(SafeHandle fileDescriptor, byte* buffer, nuint count);
    }
}
