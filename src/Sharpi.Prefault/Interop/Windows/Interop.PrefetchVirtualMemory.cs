internal static partial class Interop
{
    internal static unsafe partial class Kernel32
    {
        /// <summary>WIN32_MEMORY_RANGE_ENTRY, 16 bytes on x64.</summary>
        [StructLayout(LayoutKind.Sequential)]
        internal struct WIN32_MEMORY_RANGE_ENTRY
        {
            internal void* VirtualAddress;
            internal nuint NumberOfBytes;
        }

        /// <summary>Windows 8+.</summary>
        [SupportedOSPlatform("windows6.2")]
        [LibraryImport(Libraries.Kernel32, EntryPoint = "PrefetchVirtualMemory", SetLastError = true)]
        internal static partial int PrefetchVirtualMemory(nint process, nuint numberOfEntries, WIN32_MEMORY_RANGE_ENTRY* virtualAddresses, uint flags);

        /// <summary>GetCurrentProcess()'s pseudo-handle.</summary>
        internal static nint CurrentProcess => -1;
    }
}
