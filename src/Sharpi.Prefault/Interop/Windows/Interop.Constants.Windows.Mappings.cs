internal static partial class Interop
{
    internal static partial class Kernel32
    {
        /// <summary>MEMORY_BASIC_INFORMATION.Type of a file mapping's view.</summary>
        internal const uint MEM_MAPPED = 0x40000;

        /// <summary>With FILE_SHARE_READ and _DELETE, an open that never conflicts with the engine's.</summary>
        internal const uint FILE_SHARE_WRITE = 0x2;

        /// <summary>Opens an NT device path through the Win32 namespace.</summary>
        internal const string GlobalRootPrefix = @"\\?\GLOBALROOT";
    }
}
