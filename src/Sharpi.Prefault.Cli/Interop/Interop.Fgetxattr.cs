using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Cli;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>ssize_t fgetxattr(int fd, const char *name, void *value, size_t size); Linux (macOS has two more arguments).</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport("libc", EntryPoint = "fgetxattr", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial nint Fgetxattr(SafeHandle fileDescriptor, string name, byte* value, nuint size);
    }
}
