using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// int fcntl(int fd, int cmd, ...) with an int argument (F_GETFL ignores it, F_SETFL takes the flags); Linux and
        /// macOS x86-64, where a variadic int travels in the register of a fixed one. Returns -1 with errno set.
        /// </summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "fcntl", SetLastError = true)]
        internal static partial int Fcntl(SafeHandle fileDescriptor, int command, nint argument);

        /// <summary>
        /// fcntl as macOS arm64 calls it: a variadic argument travels on the stack, not in a register (Apple's arm64
        /// calling convention).
        /// </summary>
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "fcntl", SetLastError = true)]
        internal static partial int FcntlVariadicArm64(SafeHandle fileDescriptor, int command, nint x2, nint x3, nint x4, nint x5, nint x6, nint x7, nint argument);

        /// <summary>
        /// int fcntl(int fd, int cmd, struct flock *lock) for the open-file-description locks (F_OFD_GETLK,
        /// F_OFD_SETLK); Linux, where a variadic pointer travels in the register of a fixed one.
        /// </summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "fcntl", SetLastError = true)]
        internal static partial int Fcntl(SafeHandle fileDescriptor, int command, FileLock* fileLock);

        /// <summary>struct flock on 64-bit Linux: l_type, l_whence, l_start, l_len, l_pid (0 for an OFD lock); 32 bytes.</summary>
        [StructLayout(LayoutKind.Explicit, Size = 32)]
        internal struct FileLock
        {
            [FieldOffset(0)] public short Type;
            [FieldOffset(2)] public short Whence;
            [FieldOffset(8)] public long Start;
            [FieldOffset(16)] public long Length;
            [FieldOffset(24)] public int Pid;
        }

        /// <summary>fcntl with its int argument passed as the platform's C calling convention passes a variadic one.</summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        internal static int FcntlInt(SafeHandle fileDescriptor, int command, int argument) =>
            OperatingSystem.IsMacOS() && RuntimeInformation.ProcessArchitecture == Architecture.Arm64
                ? FcntlVariadicArm64(fileDescriptor, command, 0, 0, 0, 0, 0, 0, argument)
                : Fcntl(fileDescriptor, command, argument);
    }
}
