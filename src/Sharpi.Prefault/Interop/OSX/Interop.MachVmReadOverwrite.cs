using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>mach_port_t mach_task_self(void); macOS.</summary>
        [LibraryImport(Libraries.Libc, EntryPoint = "mach_task_self")]
        [SupportedOSPlatform("macos")]
        internal static partial uint MachTaskSelf();

        /// <summary>
        /// kern_return_t mach_vm_read_overwrite(vm_map_t target_task, mach_vm_address_t address, mach_vm_size_t size,
        /// mach_vm_address_t data, mach_vm_size_t *outsize); macOS.
        /// </summary>
        [LibraryImport(Libraries.Libc, EntryPoint = "mach_vm_read_overwrite")]
        [SupportedOSPlatform("macos")]
        internal static partial int MachVmReadOverwrite(uint targetTask, ulong address, ulong size, ulong data, ulong* outSize);
    }
}
