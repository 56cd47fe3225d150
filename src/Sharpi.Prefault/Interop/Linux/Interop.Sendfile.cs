internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>sendfile with a 64-bit offset (the plain name, as <see cref="Pread"/>).</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "sendfile", SetLastError = true)]
        internal static partial nint Sendfile(SafeHandle outFd, SafeHandle inFd, long* offset, nuint count);
    }
}
