using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Cli;

internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>pid_t gettid(void); glibc 2.30+, musl 1.2.2+. The calling thread's kernel id.</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport("libc", EntryPoint = "gettid")]
        internal static partial int Gettid();
    }
}
