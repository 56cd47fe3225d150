using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Cli;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>int fsetxattr(int fd, const char *name, const void *value, size_t size, int flags); Linux (macOS has one more argument).</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport("libc", EntryPoint = "fsetxattr", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial int Fsetxattr(SafeHandle fileDescriptor, string name, byte* value, nuint size, int flags);
    }
}
