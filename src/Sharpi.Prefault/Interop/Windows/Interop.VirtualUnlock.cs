internal static partial class Interop
{
    internal static unsafe partial class Kernel32
    {
        [LibraryImport(Libraries.Kernel32, EntryPoint = "VirtualUnlock", SetLastError = true)]
        internal static partial int VirtualUnlock(void* address, nuint size);
    }
}
