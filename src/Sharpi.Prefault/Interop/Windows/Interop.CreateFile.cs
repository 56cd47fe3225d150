using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

internal static partial class Interop
{
    internal static partial class Kernel32
    {
        internal const uint GENERIC_READ = 0x80000000;
        internal const uint FILE_SHARE_READ = 0x1;
        internal const uint FILE_SHARE_DELETE = 0x4;
        internal const uint OPEN_EXISTING = 3;

        /// <summary>Bypass the system cache: offsets, lengths and buffer addresses must be sector-aligned.</summary>
        internal const uint FILE_FLAG_NO_BUFFERING = 0x20000000;

        /// <summary>ERROR_INVALID_PARAMETER: what an unbuffered read answers when the volume rejects its alignment.</summary>
        internal const int ERROR_INVALID_PARAMETER = 87;

        /// <summary>HANDLE CreateFileW(LPCWSTR, DWORD, DWORD, LPSECURITY_ATTRIBUTES, DWORD, DWORD, HANDLE).</summary>
        [SupportedOSPlatform("windows")]
        [LibraryImport(Libraries.Kernel32, EntryPoint = "CreateFileW", StringMarshalling = StringMarshalling.Utf16, SetLastError = true)]
        internal static partial SafeFileHandle CreateFile(string fileName, uint desiredAccess, uint shareMode, nint securityAttributes,
            uint creationDisposition, uint flagsAndAttributes, nint templateFile);
    }
}
