internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>fstat on macOS arm64 (64-bit inodes).</summary>
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "fstat", SetLastError = true)]
        internal static partial int FstatArm64(SafeHandle fileDescriptor, OSXStatBuffer* buffer);

        /// <summary>fstat$INODE64 on macOS x86-64, where plain fstat has 32-bit inodes.</summary>
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "fstat$INODE64", SetLastError = true)]
        internal static partial int FstatX64(SafeHandle fileDescriptor, OSXStatBuffer* buffer);

        /// <summary>fstat with 64-bit inodes on either architecture.</summary>
        [SupportedOSPlatform("macos")]
        internal static int OSXFstat(SafeHandle fileDescriptor, OSXStatBuffer* buffer) =>
            RuntimeInformation.ProcessArchitecture == Architecture.X64 ? FstatX64(fileDescriptor, buffer) : FstatArm64(fileDescriptor, buffer);
    }
}
