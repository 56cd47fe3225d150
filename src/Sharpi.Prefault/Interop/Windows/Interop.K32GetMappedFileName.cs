using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Kernel32
    {
        /// <summary>
        /// DWORD K32GetMappedFileNameW(HANDLE hProcess, LPVOID lpv, LPWSTR lpFilename, DWORD nSize); Windows 7+. The NT
        /// device path (\Device\HarddiskVolume3\models\m.gguf) of the file mapped at <paramref name="address"/>, its
        /// length in characters, or 0 when the address maps no file.
        /// </summary>
        [SupportedOSPlatform("windows")]
        [LibraryImport(Libraries.Kernel32, EntryPoint = "K32GetMappedFileNameW", SetLastError = true)]
        internal static partial uint K32GetMappedFileName(SafeHandle process, void* address, char* fileName, uint size);
    }
}
