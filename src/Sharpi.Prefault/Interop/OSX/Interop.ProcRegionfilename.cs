internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "proc_regionfilename", SetLastError = true)]
        internal static partial int ProcRegionFilename(int pid, ulong address, byte* buffer, uint bufferSize);
    }
}
