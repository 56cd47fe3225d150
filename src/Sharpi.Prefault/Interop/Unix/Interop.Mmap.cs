internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>mmap (64-bit off_t on the targets shipped); MAP_FAILED ((void*)-1) with errno on failure.</summary>
        [LibraryImport(Libraries.Libc, EntryPoint = "mmap", SetLastError = true)]
        internal static partial void* Mmap(void* address, nuint length, int protection, int flags, SafeHandle fileDescriptor, long offset);
    }
}
