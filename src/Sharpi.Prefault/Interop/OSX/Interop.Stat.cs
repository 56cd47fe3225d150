using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// struct stat with 64-bit inodes (sys/stat.h, __DARWIN_64_BIT_INO_T: the only layout on arm64, and the one
        /// <c>stat$INODE64</c> fills on x86-64): 144 bytes; only the fields this library reads are named.
        /// </summary>
        [SupportedOSPlatform("macos")]
        [StructLayout(LayoutKind.Explicit, Size = 144)]
        internal struct OSXStatBuffer
        {
            [FieldOffset(0)] internal int Device;
            [FieldOffset(4)] internal ushort Mode;
            [FieldOffset(8)] internal ulong Inode;
            [FieldOffset(96)] internal long Size;
        }

        /// <summary>
        /// int stat(const char *path, struct stat *buf); macOS arm64, where stat has 64-bit inodes. Follows symlinks.
        /// </summary>
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "stat", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial int StatArm64(string path, OSXStatBuffer* buffer);

        /// <summary>
        /// int stat(const char *path, struct stat *buf) as <c>stat$INODE64</c>; macOS x86-64, where plain <c>stat</c>
        /// is the legacy 32-bit-inode layout.
        /// </summary>
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "stat$INODE64", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial int StatX64(string path, OSXStatBuffer* buffer);

        /// <summary>stat with the 64-bit-inode layout on either macOS architecture.</summary>
        [SupportedOSPlatform("macos")]
        internal static int OSXStat(string path, OSXStatBuffer* buffer) =>
            RuntimeInformation.ProcessArchitecture == Architecture.X64 ? StatX64(path, buffer) : StatArm64(path, buffer);
    }
}
