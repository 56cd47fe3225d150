using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>The cachestat system call number: 451 on x86-64 and in the generic table (arm64, riscv64).</summary>
        internal const long SYS_cachestat = 451;

        /// <summary>struct cachestat_range { __u64 off; __u64 len; } (len 0: to the end of the file).</summary>
        [SupportedOSPlatform("linux")]
        [StructLayout(LayoutKind.Sequential)]
        internal struct CachestatRange
        {
            internal ulong Offset;
            internal ulong Length;
        }

        /// <summary>struct cachestat: page counts of the range, in pages.</summary>
        [SupportedOSPlatform("linux")]
        [StructLayout(LayoutKind.Sequential)]
        internal struct Cachestat
        {
            internal ulong Cached;
            internal ulong Dirty;
            internal ulong Writeback;
            internal ulong Evicted;
            internal ulong RecentlyEvicted;
        }

        /// <summary>
        /// long syscall(SYS_cachestat, unsigned int fd, struct cachestat_range *range, struct cachestat *cstat,
        /// unsigned int flags); Linux 6.5+. glibc has no wrapper; its syscall() takes the arguments in registers,
        /// so a fixed prototype is safe on x86-64 and arm64. The descriptor travels as the SafeHandle (pointer-sized;
        /// the kernel reads its low 32 bits), which stays referenced for the length of the call.
        /// </summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "syscall", SetLastError = true)]
        internal static partial long SyscallCachestat(long number, SafeHandle fileDescriptor, CachestatRange* range, Cachestat* stat, uint flags);
    }
}
