internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        [LibraryImport(Libraries.Libc, EntryPoint = "mincore", SetLastError = true)]
        internal static partial int Mincore(void* address, nuint length, byte* vector);
    }
}
