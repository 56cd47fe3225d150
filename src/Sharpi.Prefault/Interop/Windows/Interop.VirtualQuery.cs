internal static partial class Interop
{
    internal static unsafe partial class Kernel32
    {
        /// <summary>MEMORY_BASIC_INFORMATION (64-bit layout).</summary>
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

        [LibraryImport(Libraries.Kernel32, EntryPoint = "VirtualQuery", SetLastError = true)]
        internal static partial nuint VirtualQuery(void* address, MEMORY_BASIC_INFORMATION* buffer, nuint length);
    }
}
