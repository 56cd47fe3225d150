using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>int fstat(int fd, struct stat *buf); macOS arm64, where fstat has 64-bit inodes (<see cref="OSXStatBuffer"/>).</summary>
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "fstat", SetLastError = true)]
        internal static partial int FstatArm64(SafeHandle fileDescriptor, OSXStatBuffer* buffer);

        /// <summary>int fstat(int fd, struct stat *buf) as <c>fstat$INODE64</c>; macOS x86-64, where plain fstat is the 32-bit-inode layout.</summary>
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "fstat$INODE64", SetLastError = true)]
        internal static partial int FstatX64(SafeHandle fileDescriptor, OSXStatBuffer* buffer);

        /// <summary>fstat with the 64-bit-inode layout on either macOS architecture.</summary>
        [SupportedOSPlatform("macos")]
        internal static int OSXFstat(SafeHandle fileDescriptor, OSXStatBuffer* buffer) =>
            RuntimeInformation.ProcessArchitecture == Architecture.X64 ? FstatX64(fileDescriptor, buffer) : FstatArm64(fileDescriptor, buffer);
    }
}
