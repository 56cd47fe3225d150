using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Tests.Interop.Windows;

/// <summary>Native struct layouts, checked the way TerraFX.Interop.Windows checks its own.</summary>
// A layout is fixed at compile time, so it is checked on every OS; the attribute tells the platform analyzer
// that these tests are about Windows structs.
[SupportedOSPlatform("windows")]
public sealed class Kernel32LayoutTests
{
    [Fact]
    public void Win32MemoryRangeEntry_IsBlittableSequentialAndPointerPairSized()
    {
        Type type = typeof(global::Interop.Kernel32.WIN32_MEMORY_RANGE_ENTRY);

        Assert.True(type.IsLayoutSequential);
        Assert.False(RuntimeHelpers.IsReferenceOrContainsReferences<global::Interop.Kernel32.WIN32_MEMORY_RANGE_ENTRY>());
        Assert.Equal(2 * IntPtr.Size, Unsafe.SizeOf<global::Interop.Kernel32.WIN32_MEMORY_RANGE_ENTRY>());
        Assert.Equal(0, Marshal.OffsetOf<global::Interop.Kernel32.WIN32_MEMORY_RANGE_ENTRY>("VirtualAddress").ToInt32());
        Assert.Equal(IntPtr.Size, Marshal.OffsetOf<global::Interop.Kernel32.WIN32_MEMORY_RANGE_ENTRY>("NumberOfBytes").ToInt32());
        if (IntPtr.Size == 8)
        {
            Assert.Equal(16, Unsafe.SizeOf<global::Interop.Kernel32.WIN32_MEMORY_RANGE_ENTRY>());
        }
    }

    [Fact]
    public void MemoryBasicInformation_MatchesTheWindowsLayout()
    {
        // The 64-bit layout (the library's Windows support is 64-bit): 48 bytes, RegionSize at 24 after PartitionId's padding.
        Assert.Equal(48, Unsafe.SizeOf<global::Interop.Kernel32.MEMORY_BASIC_INFORMATION>());
        Assert.Equal(24, Marshal.OffsetOf<global::Interop.Kernel32.MEMORY_BASIC_INFORMATION>("RegionSize").ToInt32());
    }
}
