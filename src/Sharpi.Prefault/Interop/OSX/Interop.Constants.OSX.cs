internal static partial class Interop
{
    /// <summary>macOS (XNU) values used by this library.</summary>
    internal static class OSXConstants
    {
        internal const int MADV_WILLNEED = 3;
        internal const int MADV_DONTNEED = 4;

        internal const int RLIMIT_MEMLOCK = 6;

        /// <summary>2^63 - 1 on XNU.</summary>
        internal const ulong RLIM_INFINITY = long.MaxValue;

        internal const int O_RDONLY = 0;
        internal const int O_NONBLOCK = 0x4;
        internal const int O_CLOEXEC = 0x1000000;

        internal const int F_GETFL = 3;
        internal const int F_SETFL = 4;

        internal const int KERN_SUCCESS = 0;

        internal const int VM_REGION_BASIC_INFO_64 = 9;

        /// <summary>sizeof(vm_region_basic_info_data_64_t) / sizeof(int).</summary>
        internal const uint VM_REGION_BASIC_INFO_COUNT_64 = 9;

        /// <summary>The buffer proc_regionfilename fills.</summary>
        internal const int MAXPATHLEN = 1024;

        internal const int S_IFMT = 0xF000;
        internal const int S_IFREG = 0x8000;
        internal const int S_IFIFO = 0x1000;
        internal const int S_IFCHR = 0x2000;
        internal const int S_IFDIR = 0x4000;
        internal const int S_IFBLK = 0x6000;
        internal const int S_IFSOCK = 0xC000;

        internal const int EPERM = 1;
        internal const int ENOENT = 2;
        internal const int EINTR = 4;
        internal const int ENOMEM = 12;
        internal const int EACCES = 13;
        internal const int EFAULT = 14;
        internal const int ENOTDIR = 20;
        internal const int EINVAL = 22;
        internal const int EAGAIN = 35;
    }
}
