internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>struct stat with 64-bit inodes (arm64's only layout, x86-64's stat$INODE64), 144 bytes; read fields named.</summary>
        [StructLayout(LayoutKind.Explicit, Size = 144)]
        internal struct OSXStatBuffer
        {
            [FieldOffset(0)] internal int Device;
            [FieldOffset(4)] internal ushort Mode;
            [FieldOffset(8)] internal ulong Inode;
            [FieldOffset(96)] internal long Size;
        }

        /// <summary>stat on macOS arm64 (64-bit inodes); follows symlinks.</summary>
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "stat", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial int StatArm64(string path, OSXStatBuffer* buffer);

        /// <summary>stat$INODE64 on macOS x86-64, where plain stat has 32-bit inodes.</summary>
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "stat$INODE64", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial int StatX64(string path, OSXStatBuffer* buffer);

        /// <summary>stat with 64-bit inodes on either architecture.</summary>
        [SupportedOSPlatform("macos")]
        internal static int OSXStat(string path, OSXStatBuffer* buffer) =>
            RuntimeInformation.ProcessArchitecture == Architecture.X64 ? StatX64(path, buffer) : StatArm64(path, buffer);
    }
}
