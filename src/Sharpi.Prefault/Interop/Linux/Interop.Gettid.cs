using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>pid_t gettid(void); glibc 2.30+, musl 1.2.2+. The calling thread's kernel id.</summary>
        [LibraryImport(Libraries.Libc, EntryPoint = "gettid")]
        [SupportedOSPlatform("linux")]
        internal static partial int Gettid();
    }
}
