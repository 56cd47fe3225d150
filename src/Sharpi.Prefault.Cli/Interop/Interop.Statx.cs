using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Cli;

// In the tool's namespace: the library's global Interop class is visible to the tests too, and the two would clash.
internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        internal const int AT_FDCWD = -100;
        internal const int AT_SYMLINK_NOFOLLOW = 0x100;
        internal const int AT_EMPTY_PATH = 0x1000;
        internal const uint STATX_TYPE = 0x1;
        internal const uint STATX_INO = 0x100;

        /// <summary>struct statx (256 bytes on every Linux architecture); only the fields the tool reads are named.</summary>
        [SupportedOSPlatform("linux")]
        [StructLayout(LayoutKind.Explicit, Size = 256)]
        internal struct StatxBuffer
        {
            [FieldOffset(28)] internal ushort Mode;
            [FieldOffset(32)] internal ulong Inode;
            [FieldOffset(136)] internal uint DevMajor;
            [FieldOffset(140)] internal uint DevMinor;
        }

        /// <summary>int statx(int dirfd, const char *pathname, int flags, unsigned int mask, struct statx *statxbuf); glibc 2.28+.</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport("libc", EntryPoint = "statx", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial int Statx(int directoryFileDescriptor, string path, int flags, uint mask, StatxBuffer* buffer);

        /// <summary>The same, of an open file: the descriptor with an empty path and AT_EMPTY_PATH.</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport("libc", EntryPoint = "statx", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial int Statx(SafeHandle fileDescriptor, string path, int flags, uint mask, StatxBuffer* buffer);
    }
}
