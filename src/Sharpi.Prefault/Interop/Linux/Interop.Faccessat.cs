internal static partial class Interop
{
    internal static partial class Libc
    {
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "faccessat", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial int Faccessat(int directoryFileDescriptor, string path, int mode, int flags);
    }
}
