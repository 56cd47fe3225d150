internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "pwritev", SetLastError = true)]
        internal static partial nint Pwritev(SafeHandle fd, IOVector* iov, int iovcnt, long offset);
    }
}
