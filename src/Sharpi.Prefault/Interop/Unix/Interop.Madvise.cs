internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        [LibraryImport(Libraries.Libc, EntryPoint = "madvise", SetLastError = true)]
        internal static partial int Madvise(void* address, nuint length, int advice);
    }
}
