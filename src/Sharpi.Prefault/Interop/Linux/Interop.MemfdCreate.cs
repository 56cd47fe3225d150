internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>A child the engine starts never inherits the descriptor.</summary>
        internal const uint MFD_CLOEXEC = 0x0001;

        /// <summary>memfd_create; Linux 3.17+, glibc 2.27+, musl 1.1.20+.</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "memfd_create", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
        internal static partial SafeFileHandle MemfdCreate(string name, uint flags);
    }
}
