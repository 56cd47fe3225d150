internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>_IOWR('f', 17, struct procmap_query), Linux 6.11+, asked of /proc/PID/maps.</summary>
        internal const uint PROCMAP_QUERY = (3u << 30) | (104u << 16) | (0x66u << 8) | 17u;

        /// <summary>The mapping holding query_addr, or else the next one above.</summary>
        internal const ulong PROCMAP_QUERY_COVERING_OR_NEXT_VMA = 0x10;

        /// <summary>vma_flags bits (and query_flags filters).</summary>
        internal const ulong PROCMAP_QUERY_VMA_READABLE = 0x01;

        internal const ulong PROCMAP_QUERY_VMA_WRITABLE = 0x02;

        internal const ulong PROCMAP_QUERY_VMA_EXECUTABLE = 0x04;

        internal const ulong PROCMAP_QUERY_VMA_SHARED = 0x08;

        /// <summary>struct procmap_query (104 bytes): Size and the in fields set by the caller.</summary>
        [StructLayout(LayoutKind.Sequential)]
        internal struct ProcmapQuery
        {
            internal ulong Size;
            internal ulong QueryFlags;
            internal ulong QueryAddress;
            internal ulong VmaStart;
            internal ulong VmaEnd;
            internal ulong VmaFlags;
            internal ulong VmaPageSize;
            internal ulong VmaOffset;
            internal ulong Inode;
            internal uint DevMajor;
            internal uint DevMinor;
            internal uint VmaNameSize;
            internal uint BuildIdSize;
            internal ulong VmaNameAddress;
            internal ulong BuildIdAddress;
        }

        /// <summary>ioctl(fd, PROCMAP_QUERY, arg): one address's mapping, from the VMA tree.</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "ioctl", SetLastError = true)]
        internal static partial int IoctlProcmapQuery(SafeHandle fd, nuint request, ProcmapQuery* query);
    }
}
