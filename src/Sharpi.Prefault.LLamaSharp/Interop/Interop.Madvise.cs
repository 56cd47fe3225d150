using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.LLamaSharp;

// The companion's own native call, in its own namespace (as the tool declares its own): the library's Interop is
// internal to it, and the tests see both assemblies' internals.
internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>Keep the range off 2 MiB mappings; as a flag of its own, it splits a mapping at the range's edges.</summary>
        internal const int MADV_NOHUGEPAGE = 15;

        /// <summary>int madvise(void *addr, size_t length, int advice); Linux.</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport("libc", EntryPoint = "madvise", SetLastError = true)]
        internal static partial int Madvise(void* address, nuint length, int advice);
    }
}
