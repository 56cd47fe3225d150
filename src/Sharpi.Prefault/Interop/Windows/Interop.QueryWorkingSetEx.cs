internal static partial class Interop
{
    internal static unsafe partial class Kernel32
    {
        /// <summary>PSAPI_WORKING_SET_EX_INFORMATION, 16 bytes on x64; the call fills VirtualAttributes' bit fields.</summary>
        [StructLayout(LayoutKind.Sequential)]
        internal struct PSAPI_WORKING_SET_EX_INFORMATION
        {
            internal void* VirtualAddress;
            internal nuint VirtualAttributes;

            /// <summary>In this process's working set: no fault on access.</summary>
            internal readonly bool IsValid => (VirtualAttributes & 1) != 0;
        }

        /// <summary>QueryWorkingSetEx as kernel32 exports it (Windows 7+), so no psapi.dll is needed.</summary>
        [LibraryImport(Libraries.Kernel32, EntryPoint = "K32QueryWorkingSetEx", SetLastError = true)]
        internal static partial int QueryWorkingSetEx(nint process, PSAPI_WORKING_SET_EX_INFORMATION* entries, uint size);
    }
}
