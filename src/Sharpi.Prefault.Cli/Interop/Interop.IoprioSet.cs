using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Cli;

internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>IOPRIO_WHO_PROCESS: <c>who</c> is a thread id (one thread, not its whole process).</summary>
        internal const int IOPRIO_WHO_PROCESS = 1;

        /// <summary>IOPRIO_CLASS_BE, the best-effort class (levels 0, highest, to 7, lowest).</summary>
        internal const int IOPRIO_CLASS_BE = 2;

        /// <summary>IOPRIO_CLASS_SHIFT: the class sits above 13 bits of level.</summary>
        internal const int IOPRIO_CLASS_SHIFT = 13;

        /// <summary>The ioprio_set system call number: 251 on x86-64, 30 on arm64 (the generic table); -1 elsewhere.</summary>
        internal static long SYS_ioprio_set => RuntimeInformation.ProcessArchitecture switch
        {
            Architecture.X64 => 251,
            Architecture.Arm64 => 30,
            _ => -1,
        };

        /// <summary>
        /// long syscall(SYS_ioprio_set, int which, int who, int ioprio); Linux 2.6.13+. glibc has no wrapper; its
        /// syscall() takes the arguments in registers, so a fixed prototype is safe on x86-64 and arm64.
        /// </summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport("libc", EntryPoint = "syscall", SetLastError = true)]
        internal static partial long SyscallIoprioSet(long number, int which, int who, int ioprio);
    }
}
