internal static partial class Interop
{
    /// <summary>Linux values for finding a file's mappings and its kind.</summary>
    internal static partial class LinuxConstants
    {
        /// <summary>"The working directory" as a directory descriptor.</summary>
        internal const int AT_FDCWD = -100;

        internal const uint STATX_SIZE = 0x200;

        /// <summary>A symlink itself, not its target.</summary>
        internal const int AT_SYMLINK_NOFOLLOW = 0x100;

        internal const int ENOENT = 2;
        internal const int EACCES = 13;
        internal const int ENOTDIR = 20;
        internal const int ENAMETOOLONG = 36;
        internal const int ELOOP = 40;

        internal const int S_IFIFO = 0x1000;
        internal const int S_IFCHR = 0x2000;
        internal const int S_IFDIR = 0x4000;
        internal const int S_IFBLK = 0x6000;
        internal const int S_IFLNK = 0xA000;
        internal const int S_IFSOCK = 0xC000;
    }
}
