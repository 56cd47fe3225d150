internal static partial class Interop
{
    internal static partial class Kernel32
    {
        internal const uint GENERIC_READ = 0x80000000;
        internal const uint FILE_SHARE_READ = 0x1;
        /// <summary>With FILE_SHARE_READ and _DELETE, an open that never conflicts with the engine's.</summary>
        internal const uint FILE_SHARE_WRITE = 0x2;
        internal const uint FILE_SHARE_DELETE = 0x4;
        internal const uint OPEN_EXISTING = 3;

        /// <summary>Offsets, lengths and buffer addresses must be sector-aligned.</summary>
        internal const uint FILE_FLAG_NO_BUFFERING = 0x20000000;

        /// <summary>Opens an NT device path through the Win32 namespace.</summary>
        internal const string GlobalRootPrefix = @"\\?\GLOBALROOT";

        internal const uint MEM_COMMIT = 0x1000;
        /// <summary>MEMORY_BASIC_INFORMATION.Type of a file mapping's view.</summary>
        internal const uint MEM_MAPPED = 0x40000;
        internal const uint PAGE_NOACCESS = 0x01;
        internal const uint PAGE_GUARD = 0x100;

        /// <summary>An unbuffered read's answer when the volume rejects its alignment.</summary>
        internal const int ERROR_INVALID_PARAMETER = 87;

        /// <summary>The range is not wholly committed memory.</summary>
        internal const int ERROR_INVALID_ADDRESS = 487;

        /// <summary>The lock would pass the working set's minimum size.</summary>
        internal const int ERROR_WORKING_SET_QUOTA = 1453;
    }
}
