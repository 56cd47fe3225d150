using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Bench;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        internal const int MADV_POPULATE_READ = 22;

        [LibraryImport(Libraries.Libc, EntryPoint = "madvise", SetLastError = true)]
        internal static partial int Madvise(void* address, nuint length, int advice);
    }
}
