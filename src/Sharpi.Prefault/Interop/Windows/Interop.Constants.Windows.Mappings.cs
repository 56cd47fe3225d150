internal static partial class Interop
{
    internal static partial class Kernel32
    {
        /// <summary>MEMORY_BASIC_INFORMATION.Type of a view of a section (a file mapping).</summary>
        internal const uint MEM_MAPPED = 0x40000;

        /// <summary>FILE_SHARE_WRITE: with FILE_SHARE_READ and FILE_SHARE_DELETE, an open that never conflicts with the engine's.</summary>
        internal const uint FILE_SHARE_WRITE = 0x2;

        /// <summary>The prefix that opens an NT device path (\Device\HarddiskVolume3\...) through the Win32 namespace.</summary>
        internal const string GlobalRootPrefix = @"\\?\GLOBALROOT";
    }
}
