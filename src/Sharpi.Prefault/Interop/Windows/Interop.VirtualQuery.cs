using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Kernel32
    {
        internal const uint MEM_COMMIT = 0x1000;
        internal const uint PAGE_NOACCESS = 0x01;
        internal const uint PAGE_GUARD = 0x100;

        /// <summary>MEMORY_BASIC_INFORMATION (64-bit layout).</summary>
        [SupportedOSPlatform("windows")]
        [StructLayout(LayoutKind.Sequential)]
        internal struct MEMORY_BASIC_INFORMATION
        {
            internal void* BaseAddress;
            internal void* AllocationBase;
            internal uint AllocationProtect;
            internal ushort PartitionId;
            internal nuint RegionSize;
            internal uint State;
            internal uint Protect;
            internal uint Type;
        }

        [SupportedOSPlatform("windows")]
        [LibraryImport(Libraries.Kernel32, EntryPoint = "VirtualQuery", SetLastError = true)]
        internal static partial nuint VirtualQuery(void* address, MEMORY_BASIC_INFORMATION* buffer, nuint length);
    }
}
