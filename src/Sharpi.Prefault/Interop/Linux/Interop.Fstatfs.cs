using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// struct statfs as far as this library reads it: f_type, a long at offset 0 on 64-bit Linux. The kernel
        /// writes 120 bytes on x86-64 and arm64; the size leaves room.
        /// </summary>
        [SupportedOSPlatform("linux")]
        [StructLayout(LayoutKind.Explicit, Size = 256)]
        internal struct StatfsBuffer
        {
            [FieldOffset(0)] internal long Type;
        }

        /// <summary>
        /// int fstatfs(int fd, struct statfs *buf); Linux (64-bit targets: fstatfs is fstatfs64). The descriptor travels as
        /// a pointer-sized SafeHandle, as in dotnet/runtime; the C int is its low half.
        /// </summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "fstatfs", SetLastError = true)]
        internal static partial int Fstatfs(SafeHandle fileDescriptor, StatfsBuffer* buffer);
    }
}
