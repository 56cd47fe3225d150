internal static partial class Interop
{
    internal static partial class Libc
    {
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "fsync", SetLastError = true)]
        internal static partial int Fsync(SafeHandle fileDescriptor);
    }
}
