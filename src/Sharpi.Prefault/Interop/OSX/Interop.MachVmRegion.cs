using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>
        /// vm_region_basic_info_data_64_t (mach/vm_region.h), declared under <c>#pragma pack(4)</c>: 36 bytes, the
        /// 64-bit <c>offset</c> at 20.
        /// </summary>
        [SupportedOSPlatform("macos")]
        [StructLayout(LayoutKind.Explicit, Size = 36)]
        internal struct VmRegionBasicInfo64
        {
            [FieldOffset(0)] internal int Protection;
            [FieldOffset(4)] internal int MaxProtection;
            [FieldOffset(8)] internal uint Inheritance;
            [FieldOffset(12)] internal uint Shared;
            [FieldOffset(16)] internal uint Reserved;
            [FieldOffset(20)] internal ulong Offset;
            [FieldOffset(28)] internal int Behavior;
            [FieldOffset(32)] internal ushort UserWiredCount;
        }

        /// <summary>
        /// kern_return_t mach_vm_region(vm_map_read_t target_task, mach_vm_address_t *address, mach_vm_size_t *size,
        /// vm_region_flavor_t flavor, vm_region_info_t info, mach_msg_type_number_t *infoCnt, mach_port_t
        /// *object_name); macOS.
        /// </summary>
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "mach_vm_region")]
        internal static partial int MachVmRegion(uint targetTask, ulong* address, ulong* size, int flavor, VmRegionBasicInfo64* info,
            uint* infoCount, uint* objectName);
    }
}
