using System.Runtime.InteropServices;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>int madvise(void *addr, size_t length, int advice); Linux and macOS.</summary>
        [LibraryImport(Libraries.Libc, EntryPoint = "madvise", SetLastError = true)]
        internal static partial int Madvise(void* address, nuint length, int advice);
    }
}
