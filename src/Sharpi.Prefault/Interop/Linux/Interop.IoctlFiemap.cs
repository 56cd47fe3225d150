internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>_IOWR('f', 11, struct fiemap) on x86-64, arm64 and asm-generic.</summary>
        internal const uint FS_IOC_FIEMAP = 0xC020660B;

        /// <summary>struct fiemap, 32 bytes, followed by its extents in the same buffer.</summary>
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

        /// <summary>ioctl(fd, FS_IOC_FIEMAP, struct fiemap *).</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "ioctl", SetLastError = true)]
        internal static partial int IoctlFiemap(SafeHandle fileDescriptor, nuint request, Fiemap* map);
    }
}
