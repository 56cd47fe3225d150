internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>fcntl with an int argument where a variadic int travels as a fixed one (Linux, macOS x86-64); -1 with errno.</summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "fcntl", SetLastError = true)]
        internal static partial int Fcntl(SafeHandle fileDescriptor, int command, nint argument);

        /// <summary>fcntl on macOS arm64, where a variadic argument travels on the stack.</summary>
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "fcntl", SetLastError = true)]
        internal static partial int FcntlVariadicArm64(SafeHandle fileDescriptor, int command, nint x2, nint x3, nint x4, nint x5, nint x6, nint x7, nint argument);

        /// <summary>fcntl with a struct flock* for open-file-description locks (Linux).</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "fcntl", SetLastError = true)]
        internal static partial int Fcntl(SafeHandle fileDescriptor, int command, FileLock* fileLock);

        /// <summary>struct flock on 64-bit Linux (l_pid 0 for an OFD lock).</summary>
        [StructLayout(LayoutKind.Explicit, Size = 32)]
        internal struct FileLock
        {
            [FieldOffset(0)] public short Type;
            [FieldOffset(2)] public short Whence;
            [FieldOffset(8)] public long Start;
            [FieldOffset(16)] public long Length;
            [FieldOffset(24)] public int Pid;
        }

        /// <summary>fcntl with its int argument passed as this platform passes a variadic one.</summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        internal static int FcntlInt(SafeHandle fileDescriptor, int command, int argument) =>
            OperatingSystem.IsMacOS() && RuntimeInformation.ProcessArchitecture == Architecture.Arm64
                ? FcntlVariadicArm64(fileDescriptor, command, 0, 0, 0, 0, 0, 0, argument)
                : Fcntl(fileDescriptor, command, argument);
    }
}
