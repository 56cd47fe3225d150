using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Kernel32
    {
        [SupportedOSPlatform("windows")]
        [LibraryImport(Libraries.Kernel32, EntryPoint = "VirtualLock", SetLastError = true)]
        internal static partial int VirtualLock(void* address, nuint size);

        /// <summary>The lock would pass the working set's minimum size.</summary>
        internal const int ERROR_WORKING_SET_QUOTA = 1453;
    }
}
