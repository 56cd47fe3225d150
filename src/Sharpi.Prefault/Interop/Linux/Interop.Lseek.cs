internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>lseek with a 64-bit offset, for SEEK_DATA/SEEK_HOLE (whose values differ on macOS).</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "lseek", SetLastError = true)]
        internal static partial long Lseek(SafeHandle fd, long offset, int whence);
    }
}
