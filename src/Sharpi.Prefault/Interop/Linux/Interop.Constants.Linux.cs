internal static partial class Interop
{
    /// <summary>Linux values (asm-generic; x86-64 and arm64 agree).</summary>
    internal static partial class LinuxConstants
    {
        internal const int MADV_WILLNEED = 3;
        internal const int MADV_DONTNEED = 4;
        /// <summary>On a file mapping: page-cache folios of PMD size per fault.</summary>
        internal const int MADV_HUGEPAGE = 14;
        internal const int MADV_NOHUGEPAGE = 15;
        /// <summary>Linux 5.4+: reclaim now without discarding data.</summary>
        internal const int MADV_PAGEOUT = 21;
        /// <summary>Linux 5.14+: fault pages in readable; EFAULT past a file's end.</summary>
        internal const int MADV_POPULATE_READ = 22;
        /// <summary>Linux 5.14+: fault pages in writable.</summary>
        internal const int MADV_POPULATE_WRITE = 23;

        internal const int POSIX_FADV_WILLNEED = 3;
        internal const int POSIX_FADV_DONTNEED = 4;

        /// <summary>Linux 3.1+.</summary>
        internal const int SEEK_DATA = 3;
        internal const int SEEK_HOLE = 4;

        /// <summary>statfs f_type of hugetlbfs.</summary>
        internal const long HUGETLBFS_MAGIC = unchecked((int)0x958458f6);

        internal const int PROT_READ = 0x1;
        internal const int MAP_SHARED = 0x01;

        internal const int AT_EMPTY_PATH = 0x1000;
        internal const uint STATX_TYPE = 0x1;
        internal const uint STATX_INO = 0x100;
        internal const uint STATX_UID = 0x8;

        /// <summary>Checked with the effective ids, as the kernel's own checks are (with AT_EACCESS).</summary>
        internal const int W_OK = 2;
        internal const int AT_EACCESS = 0x200;

        internal const int EPERM = 1;
        internal const int EINTR = 4;
        internal const int EIO = 5;
        /// <summary>lseek(SEEK_DATA): no data at or after the offset.</summary>
        internal const int ENXIO = 6;
        internal const int EAGAIN = 11;
        internal const int ENOMEM = 12;
        internal const int EFAULT = 14;
        internal const int EINVAL = 22;
        internal const int ENOSPC = 28;
        internal const int ENOSYS = 38;
        internal const int EHWPOISON = 133;
    }
}
