using System.Runtime.InteropServices;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>int mincore(void *addr, size_t length, unsigned char *vec); Linux and macOS.</summary>
        [LibraryImport(Libraries.Libc, EntryPoint = "mincore", SetLastError = true)]
        internal static partial int Mincore(void* address, nuint length, byte* vector);
    }
}
