internal static partial class Interop
{
    /// <summary>Linux values (asm-generic; x86-64 and arm64 agree).</summary>
    internal static class LinuxConstants
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

        /// <summary>FileOptions.RandomAccess's and SequentialScan's advice.</summary>
        internal const int POSIX_FADV_RANDOM = 1;
        internal const int POSIX_FADV_SEQUENTIAL = 2;
        internal const int POSIX_FADV_WILLNEED = 3;
        internal const int POSIX_FADV_DONTNEED = 4;

        internal const int PROT_READ = 0x1;
        internal const int MAP_SHARED = 0x01;

        /// <summary>Bytes that may be locked without CAP_IPC_LOCK.</summary>
        internal const int RLIMIT_MEMLOCK = 8;

        internal const ulong RLIM_INFINITY = ulong.MaxValue;

        internal const int O_RDONLY = 0;

        /// <summary>02000000 octal on x86-64, arm64 and asm-generic.</summary>
        internal const int O_CLOEXEC = 0x80000;

        /// <summary>04000 octal on x86-64, arm64 and asm-generic: opening a FIFO returns at once.</summary>
        internal const int O_NONBLOCK = 0x800;

        /// <summary>O_DIRECT for this architecture; 0 where unknown, so the caller reads buffered.</summary>
        internal static int O_DIRECT => RuntimeInformation.ProcessArchitecture switch
        {
            Architecture.X64 or Architecture.X86 or Architecture.LoongArch64 or Architecture.S390x => 0x4000,
#if NET9_0_OR_GREATER
            Architecture.RiscV64 => 0x4000,
#endif
            Architecture.Arm64 or Architecture.Arm => 0x10000,
            Architecture.Ppc64le => 0x20000,
            _ => 0,
        };

        /// <summary>fcntl: read and set the file status flags.</summary>
        internal const int F_GETFL = 3;
        internal const int F_SETFL = 4;

        /// <summary>Linux 3.1+.</summary>
        internal const int SEEK_DATA = 3;
        internal const int SEEK_HOLE = 4;

        /// <summary>"The working directory" as a directory descriptor.</summary>
        internal const int AT_FDCWD = -100;

        /// <summary>A symlink itself, not its target.</summary>
        internal const int AT_SYMLINK_NOFOLLOW = 0x100;
        internal const int AT_EMPTY_PATH = 0x1000;

        /// <summary>Checked with the effective ids, as the kernel's own checks are (with AT_EACCESS).</summary>
        internal const int W_OK = 2;
        internal const int AT_EACCESS = 0x200;

        internal const uint STATX_TYPE = 0x1;
        internal const uint STATX_UID = 0x8;
        internal const uint STATX_INO = 0x100;
        internal const uint STATX_SIZE = 0x200;
        /// <summary>Linux 6.1+: the file's Direct I/O alignment.</summary>
        internal const uint STATX_DIOALIGN = 0x2000;

        internal const int S_IFMT = 0xF000;
        internal const int S_IFREG = 0x8000;
        internal const int S_IFIFO = 0x1000;
        internal const int S_IFCHR = 0x2000;
        internal const int S_IFDIR = 0x4000;
        internal const int S_IFBLK = 0x6000;
        internal const int S_IFLNK = 0xA000;
        internal const int S_IFSOCK = 0xC000;

        internal const long TMPFS_MAGIC = 0x01021994;
        internal const long RAMFS_MAGIC = unchecked((int)0x858458f6);
        internal const long HUGETLBFS_MAGIC = unchecked((int)0x958458f6);
        internal const long PROC_SUPER_MAGIC = 0x9fa0;
        internal const long BTRFS_SUPER_MAGIC = 0x9123683E;

        /// <summary>fiemap_extent flags.</summary>
        internal const uint FIEMAP_EXTENT_LAST = 0x1;
        internal const uint FIEMAP_EXTENT_ENCODED = 0x8;
        internal const uint FIEMAP_EXTENT_DATA_INLINE = 0x200;

        internal const int EPERM = 1;
        internal const int ENOENT = 2;
        internal const int EINTR = 4;
        internal const int EIO = 5;
        /// <summary>lseek(SEEK_DATA): no data at or after the offset.</summary>
        internal const int ENXIO = 6;
        internal const int EAGAIN = 11;
        internal const int ENOMEM = 12;
        internal const int EACCES = 13;
        internal const int EFAULT = 14;
        internal const int ENOTDIR = 20;
        internal const int EISDIR = 21;
        internal const int EINVAL = 22;
        internal const int ENOSPC = 28;
        internal const int ENAMETOOLONG = 36;
        internal const int ENOSYS = 38;
        internal const int ELOOP = 40;
        internal const int EHWPOISON = 133;
    }
}
