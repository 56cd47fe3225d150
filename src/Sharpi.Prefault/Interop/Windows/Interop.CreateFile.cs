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

        /// <summary>Offsets, lengths and buffer addresses must be sector-aligned.</summary>
        internal const uint FILE_FLAG_NO_BUFFERING = 0x20000000;

        /// <summary>An unbuffered read's answer when the volume rejects its alignment.</summary>
        internal const int ERROR_INVALID_PARAMETER = 87;

        [SupportedOSPlatform("windows")]
        [LibraryImport(Libraries.Kernel32, EntryPoint = "CreateFileW", StringMarshalling = StringMarshalling.Utf16, SetLastError = true)]
        internal static partial SafeFileHandle CreateFile(string fileName, uint desiredAccess, uint shareMode, nint securityAttributes,
            uint creationDisposition, uint flagsAndAttributes, nint templateFile);
    }
}
