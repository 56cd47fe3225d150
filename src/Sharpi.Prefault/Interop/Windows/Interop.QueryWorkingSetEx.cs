using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Kernel32
    {
        /// <summary>
        /// PSAPI_WORKING_SET_EX_INFORMATION (psapi.h): { PVOID VirtualAddress; PSAPI_WORKING_SET_EX_BLOCK VirtualAttributes; },
        /// 16 bytes on x64. The caller fills VirtualAddress; the call fills VirtualAttributes, a ULONG_PTR of bit fields.
        /// </summary>
        [SupportedOSPlatform("windows")]
        [StructLayout(LayoutKind.Sequential)]
        internal struct PSAPI_WORKING_SET_EX_INFORMATION
        {
            internal void* VirtualAddress;
            internal nuint VirtualAttributes;

            /// <summary>Bit 0 of VirtualAttributes: the page is in this process's working set (mapped, no fault on access).</summary>
            internal readonly bool IsValid => (VirtualAttributes & 1) != 0;
        }

        /// <summary>
        /// BOOL K32QueryWorkingSetEx(HANDLE, PVOID pv, DWORD cb): psapi's QueryWorkingSetEx as kernel32 exports it
        /// (Windows 7+), so no psapi.dll is needed.
        /// </summary>
        [SupportedOSPlatform("windows")]
        [LibraryImport(Libraries.Kernel32, EntryPoint = "K32QueryWorkingSetEx", SetLastError = true)]
        internal static partial int QueryWorkingSetEx(nint process, PSAPI_WORKING_SET_EX_INFORMATION* entries, uint size);

        /// <summary>ERROR_INVALID_ADDRESS: the range is not (wholly) committed memory.</summary>
        internal const int ERROR_INVALID_ADDRESS = 487;
    }
}
