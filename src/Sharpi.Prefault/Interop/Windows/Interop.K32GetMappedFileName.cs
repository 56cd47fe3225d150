internal static partial class Interop
{
    internal static unsafe partial class Kernel32
    {
        [LibraryImport(Libraries.Kernel32, EntryPoint = "K32GetMappedFileNameW", SetLastError = true)]
        internal static partial uint K32GetMappedFileName(SafeHandle process, void* address, char* fileName, uint size);
    }
}
