using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Cli;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// int fcntl(int fd, int cmd, ...) with an integer argument (F_GETFL, F_SETFL); Linux. Variadic in C; the argument
        /// is passed as a fixed one, as the 64-bit Linux ABIs allow for an integer or a pointer.
        /// </summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport("libc", EntryPoint = "fcntl", SetLastError = true)]
        internal static partial int Fcntl(SafeHandle fileDescriptor, int command, nint argument);

        /// <summary>int fcntl(int fd, int cmd, struct flock *lock) for the open-file-description locks (F_OFD_GETLK, F_OFD_SETLK); Linux.</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport("libc", EntryPoint = "fcntl", SetLastError = true)]
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
    }
}
