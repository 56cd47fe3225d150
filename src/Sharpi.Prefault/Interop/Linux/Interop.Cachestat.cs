internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>451 on x86-64 and in the generic table (arm64, riscv64).</summary>
        internal const long SYS_cachestat = 451;

        /// <summary>struct cachestat_range (len 0: to the end of the file).</summary>
        [StructLayout(LayoutKind.Sequential)]
        internal struct CachestatRange
        {
            internal ulong Offset;
            internal ulong Length;
        }

        /// <summary>struct cachestat, in pages.</summary>
        [StructLayout(LayoutKind.Sequential)]
        internal struct Cachestat
        {
            internal ulong Cached;
            internal ulong Dirty;
            internal ulong Writeback;
            internal ulong Evicted;
            internal ulong RecentlyEvicted;
        }

        /// <summary>syscall(SYS_cachestat, fd, range, cstat, flags), Linux 6.5+, which glibc does not wrap.</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "syscall", SetLastError = true)]
        internal static partial long SyscallCachestat(long number, SafeHandle fileDescriptor, CachestatRange* range, Cachestat* stat, uint flags);
    }
}
