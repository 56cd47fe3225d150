using System.Runtime.InteropServices;

internal static partial class Interop
{
    /// <summary>Linux values for Direct I/O reads.</summary>
    internal static partial class LinuxConstants
    {
        internal const int O_RDONLY = 0;

        /// <summary>02000000 octal on x86-64, arm64 and asm-generic.</summary>
        internal const int O_CLOEXEC = 0x80000;

        /// <summary>04000 octal on x86-64, arm64 and asm-generic: opening a FIFO returns at once.</summary>
        internal const int O_NONBLOCK = 0x800;

        internal const int S_IFMT = 0xF000;
        internal const int S_IFREG = 0x8000;

        /// <summary>Linux 6.1+: the file's Direct I/O alignment.</summary>
        internal const uint STATX_DIOALIGN = 0x2000;

        internal const long TMPFS_MAGIC = 0x01021994;
        internal const long RAMFS_MAGIC = unchecked((int)0x858458f6);
        internal const long PROC_SUPER_MAGIC = 0x9fa0;
        internal const long BTRFS_SUPER_MAGIC = 0x9123683E;

        /// <summary>fiemap_extent flags.</summary>
        internal const uint FIEMAP_EXTENT_LAST = 0x1;
        internal const uint FIEMAP_EXTENT_ENCODED = 0x8;
        internal const uint FIEMAP_EXTENT_DATA_INLINE = 0x200;

        /// <summary>
        /// O_DIRECT, which differs per architecture; 0 where unknown, so the caller reads buffered rather than pass a flag that
        /// means something else.
        /// </summary>
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
    }
}
