internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>vm_region_basic_info_data_64_t under #pragma pack(4): 36 bytes, offset at 20.</summary>
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

        /// <summary>mach_vm_region (macOS).</summary>
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "mach_vm_region")]
        internal static partial int MachVmRegion(uint targetTask, ulong* address, ulong* size, int flavor, VmRegionBasicInfo64* info,
            uint* infoCount, uint* objectName);
    }
}
