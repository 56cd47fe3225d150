using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// struct statfs as far as this library reads it, on 64-bit Linux: f_type (a long at 0), then f_bsize (8),
        /// f_blocks (16), f_bfree (24) and f_bavail (32), block counts in f_bsize units.
        /// </summary>
        [SupportedOSPlatform("linux")]
        [StructLayout(LayoutKind.Explicit, Size = 256)]
        internal struct StatfsBuffer
        {
            [FieldOffset(0)] internal long Type;
            [FieldOffset(8)] internal long BlockSize;
            [FieldOffset(16)] internal ulong Blocks;
            [FieldOffset(24)] internal ulong BlocksFree;
            [FieldOffset(32)] internal ulong BlocksAvailable;
        }

        /// <summary>int fstatfs(int fd, struct statfs *buf); Linux (64-bit targets: fstatfs is fstatfs64).</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "fstatfs", SetLastError = true)]
        internal static partial int Fstatfs(SafeHandle fileDescriptor, StatfsBuffer* buffer);
    }
}
