using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        [LibraryImport(Libraries.Libc, EntryPoint = "mach_task_self")]
        [SupportedOSPlatform("macos")]
        internal static partial uint MachTaskSelf();

        [LibraryImport(Libraries.Libc, EntryPoint = "mach_vm_read_overwrite")]
        [SupportedOSPlatform("macos")]
        internal static partial int MachVmReadOverwrite(uint targetTask, ulong address, ulong size, ulong data, ulong* outSize);
    }
}
