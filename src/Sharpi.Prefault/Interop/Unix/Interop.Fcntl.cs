using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static partial class Libc
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
        /// calling convention). Six unused register arguments fill x2-x7, so <paramref name="argument"/>, the ninth,
        /// lands in the first stack slot where fcntl's va_arg reads it.
        /// </summary>
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "fcntl", SetLastError = true)]
        internal static partial int FcntlVariadicArm64(SafeHandle fileDescriptor, int command, nint x2, nint x3, nint x4, nint x5, nint x6, nint x7, nint argument);

        /// <summary>fcntl with its int argument passed as the platform's C calling convention passes a variadic one.</summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        internal static int FcntlInt(SafeHandle fileDescriptor, int command, int argument) =>
            OperatingSystem.IsMacOS() && RuntimeInformation.ProcessArchitecture == Architecture.Arm64
                ? FcntlVariadicArm64(fileDescriptor, command, 0, 0, 0, 0, 0, 0, argument)
                : Fcntl(fileDescriptor, command, argument);
    }
}
