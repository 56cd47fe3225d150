using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using MEMORY_BASIC_INFORMATION = Interop.Kernel32.MEMORY_BASIC_INFORMATION;

namespace Sharpi.Prefault.Tests.Interop.Windows;

/// <summary>
/// MEMORY_BASIC_INFORMATION (winnt.h), the 64-bit layout (the library's Windows support is 64-bit): 48 bytes, with
/// RegionSize at 24 after PartitionId's padding.
/// </summary>
// A layout is fixed at compile time, so it is checked on every OS; the attribute tells the platform analyzer
// that these tests are about a Windows struct.
[SupportedOSPlatform("windows")]
public sealed class MemoryBasicInformationLayoutTests
{
    [Fact]
    public void MemoryBasicInformation_IsBlittable()
    {
        Assert.False(RuntimeHelpers.IsReferenceOrContainsReferences<MEMORY_BASIC_INFORMATION>());
        Assert.Equal(Unsafe.SizeOf<MEMORY_BASIC_INFORMATION>(), Marshal.SizeOf<MEMORY_BASIC_INFORMATION>());
    }

    [Fact]
    public void MemoryBasicInformation_IsLayoutSequential()
    {
        Assert.True(typeof(MEMORY_BASIC_INFORMATION).IsLayoutSequential);
    }

    [Fact]
    public void MemoryBasicInformation_Is48Bytes()
    {
        Assert.Equal(48, Unsafe.SizeOf<MEMORY_BASIC_INFORMATION>());
    }

    [Theory]
    [InlineData(nameof(MEMORY_BASIC_INFORMATION.BaseAddress), 0)]
    [InlineData(nameof(MEMORY_BASIC_INFORMATION.AllocationBase), 8)]
    [InlineData(nameof(MEMORY_BASIC_INFORMATION.AllocationProtect), 16)]
    [InlineData(nameof(MEMORY_BASIC_INFORMATION.PartitionId), 20)]
    [InlineData(nameof(MEMORY_BASIC_INFORMATION.RegionSize), 24)]
    [InlineData(nameof(MEMORY_BASIC_INFORMATION.State), 32)]
    [InlineData(nameof(MEMORY_BASIC_INFORMATION.Protect), 36)]
    [InlineData(nameof(MEMORY_BASIC_INFORMATION.Type), 40)]
    public void MemoryBasicInformation_FieldSitsAtTheHeadersOffset(string field, int offset)
    {
        Assert.Equal(offset, (int)Marshal.OffsetOf<MEMORY_BASIC_INFORMATION>(field));
    }
}
