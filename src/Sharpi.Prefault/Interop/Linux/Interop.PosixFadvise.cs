internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>posix_fadvise: returns the error number itself and leaves errno alone.</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "posix_fadvise")]
        internal static partial int PosixFadvise(SafeHandle fileDescriptor, long offset, long length, int advice);
    }
}
