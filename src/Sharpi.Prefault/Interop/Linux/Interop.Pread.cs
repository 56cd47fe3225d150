internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "pread", SetLastError = true)]
        internal static partial nint Pread(SafeHandle fd, byte* buf, nuint count, long offset);
    }
}
