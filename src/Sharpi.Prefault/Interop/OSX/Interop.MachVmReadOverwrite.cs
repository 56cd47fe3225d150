internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "mach_task_self")]
        internal static partial uint MachTaskSelf();

        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "mach_vm_read_overwrite")]
        internal static partial int MachVmReadOverwrite(uint targetTask, ulong address, ulong size, ulong data, ulong* outSize);
    }
}
