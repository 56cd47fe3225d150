using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Cli;

// In the tool's namespace: the library's global Interop class is visible to the tests too, and the two would clash.
internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        internal const int AT_FDCWD = -100;
        internal const uint STATX_TYPE = 0x1;

        /// <summary>struct statx (256 bytes on every Linux architecture); only stx_mode is read.</summary>
        [SupportedOSPlatform("linux")]
        [StructLayout(LayoutKind.Explicit, Size = 256)]
        internal struct StatxBuffer
        {
            [FieldOffset(28)] internal ushort Mode;
        }

        /// <summary>int statx(int dirfd, const char *pathname, int flags, unsigned int mask, struct statx *statxbuf); glibc 2.28+.</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport("libc", EntryPoint = "statx", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial int Statx(int directoryFileDescriptor, string path, int flags, uint mask, StatxBuffer* buffer);
    }
}
