internal static partial class Interop
{
    internal static unsafe partial class Kernel32
    {
        [LibraryImport(Libraries.Kernel32, EntryPoint = "VirtualLock", SetLastError = true)]
        internal static partial int VirtualLock(void* address, nuint size);
    }
}
