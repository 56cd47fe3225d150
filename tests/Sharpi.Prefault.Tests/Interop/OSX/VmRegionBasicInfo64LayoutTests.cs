using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using VmRegionBasicInfo64 = Interop.Libc.VmRegionBasicInfo64;

namespace Sharpi.Prefault.Tests.Interop;

/// <summary>
/// vm_region_basic_info_data_64_t (mach/vm_region.h, under #pragma pack(4)): 36 bytes, nine ints as
/// VM_REGION_BASIC_INFO_COUNT_64 says, with the 64-bit offset at 20 rather than an 8-aligned 24.
/// </summary>
[SupportedOSPlatform("macos")]
public sealed class VmRegionBasicInfo64LayoutTests
{
    [Fact]
    public void VmRegionBasicInfo64_IsBlittable()
    {
        Assert.False(RuntimeHelpers.IsReferenceOrContainsReferences<VmRegionBasicInfo64>());
        Assert.Equal(Unsafe.SizeOf<VmRegionBasicInfo64>(), Marshal.SizeOf<VmRegionBasicInfo64>());
    }

    [Fact]
    public void VmRegionBasicInfo64_IsTheCountTimesFourBytes()
    {
        Assert.Equal((int)global::Interop.OSXConstants.VM_REGION_BASIC_INFO_COUNT_64 * sizeof(int), Unsafe.SizeOf<VmRegionBasicInfo64>());
    }

    [Theory]
    [InlineData(nameof(VmRegionBasicInfo64.Protection), 0)]
    [InlineData(nameof(VmRegionBasicInfo64.MaxProtection), 4)]
    [InlineData(nameof(VmRegionBasicInfo64.Inheritance), 8)]
    [InlineData(nameof(VmRegionBasicInfo64.Shared), 12)]
    [InlineData(nameof(VmRegionBasicInfo64.Reserved), 16)]
    [InlineData(nameof(VmRegionBasicInfo64.Offset), 20)]
    [InlineData(nameof(VmRegionBasicInfo64.Behavior), 28)]
    [InlineData(nameof(VmRegionBasicInfo64.UserWiredCount), 32)]
    public void VmRegionBasicInfo64_FieldSitsAtTheHeadersOffset(string field, int offset)
    {
        Assert.Equal(offset, (int)Marshal.OffsetOf<VmRegionBasicInfo64>(field));
    }
}
