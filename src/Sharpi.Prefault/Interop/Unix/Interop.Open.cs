internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>open (open64 on the 64-bit targets).</summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "open", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial SafeFileHandle Open(string path, int flags, int mode);
    }
}
