internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "munlock", SetLastError = true)]
        internal static partial int Munlock(void* address, nuint length);
    }
}
