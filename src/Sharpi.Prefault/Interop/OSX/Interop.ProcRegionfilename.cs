using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// int proc_regionfilename(int pid, uint64_t address, void *buffer, uint32_t buffersize); macOS (libproc).
        /// </summary>
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "proc_regionfilename", SetLastError = true)]
        internal static partial int ProcRegionFilename(int pid, ulong address, byte* buffer, uint bufferSize);
    }
}
