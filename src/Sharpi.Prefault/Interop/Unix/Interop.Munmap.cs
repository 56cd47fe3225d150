internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        [LibraryImport(Libraries.Libc, EntryPoint = "munmap", SetLastError = true)]
        internal static partial int Munmap(void* address, nuint length);
    }
}
