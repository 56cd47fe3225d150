internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "mlock", SetLastError = true)]
        internal static partial int Mlock(void* address, nuint length);
    }
}
