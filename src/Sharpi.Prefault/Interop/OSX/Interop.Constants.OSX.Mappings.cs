internal static partial class Interop
{
    /// <summary>macOS values for finding a file's mappings.</summary>
    internal static partial class OSXConstants
    {
        internal const int KERN_SUCCESS = 0;

        internal const int VM_REGION_BASIC_INFO_64 = 9;

        /// <summary>sizeof(vm_region_basic_info_data_64_t) / sizeof(int).</summary>
        internal const uint VM_REGION_BASIC_INFO_COUNT_64 = 9;

        /// <summary>The buffer proc_regionfilename fills.</summary>
        internal const int MAXPATHLEN = 1024;

        internal const int ENOENT = 2;
        internal const int ENOTDIR = 20;

        internal const int S_IFMT = 0xF000;
        internal const int S_IFREG = 0x8000;
        internal const int S_IFIFO = 0x1000;
        internal const int S_IFCHR = 0x2000;
        internal const int S_IFDIR = 0x4000;
        internal const int S_IFBLK = 0x6000;
        internal const int S_IFSOCK = 0xC000;
    }
}
