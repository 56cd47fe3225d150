using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>FS_IOC_FIEMAP, _IOWR('f', 11, struct fiemap): the same on x86-64, arm64 and the asm-generic architectures.</summary>
        internal const uint FS_IOC_FIEMAP = 0xC020660B;

        /// <summary>struct fiemap of include/uapi/linux/fiemap.h, 32 bytes; the extents follow it in the same buffer.</summary>
        [SupportedOSPlatform("linux")]
        [StructLayout(LayoutKind.Sequential)]
        internal struct Fiemap
        {
            internal ulong Start;
            internal ulong Length;
            internal uint Flags;
            internal uint MappedExtents;
            internal uint ExtentCount;
            internal uint Reserved;
        }

        /// <summary>struct fiemap_extent, 56 bytes.</summary>
        [SupportedOSPlatform("linux")]
        [StructLayout(LayoutKind.Sequential)]
        internal struct FiemapExtent
        {
            internal ulong Logical;
            internal ulong Physical;
            internal ulong Length;
            internal ulong Reserved0;
            internal ulong Reserved1;
            internal uint Flags;
            internal uint Reserved2;
            internal uint Reserved3;
            internal uint Reserved4;
        }

        /// <summary>int ioctl(int fd, FS_IOC_FIEMAP, struct fiemap *); Linux.</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "ioctl", SetLastError = true)]
        internal static partial int IoctlFiemap(SafeHandle fileDescriptor, nuint request, Fiemap* map);
    }
}
