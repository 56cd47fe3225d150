using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using WIN32_MEMORY_RANGE_ENTRY = Interop.Kernel32.WIN32_MEMORY_RANGE_ENTRY;

namespace Sharpi.Prefault.Tests.Interop.Windows;

/// <summary>WIN32_MEMORY_RANGE_ENTRY (memoryapi.h): { PVOID VirtualAddress; SIZE_T NumberOfBytes; }, 16 bytes on x64.</summary>
// A layout is fixed at compile time, so it is checked on every OS; the attribute tells the platform analyzer
// that these tests are about a Windows struct.
[SupportedOSPlatform("windows")]
public sealed class Win32MemoryRangeEntryLayoutTests
{
    [Fact]
    public void Win32MemoryRangeEntry_IsBlittable()
    {
        Assert.False(RuntimeHelpers.IsReferenceOrContainsReferences<WIN32_MEMORY_RANGE_ENTRY>());
        Assert.Equal(Unsafe.SizeOf<WIN32_MEMORY_RANGE_ENTRY>(), Marshal.SizeOf<WIN32_MEMORY_RANGE_ENTRY>());
    }

    [Fact]
    public void Win32MemoryRangeEntry_IsLayoutSequential()
    {
        Assert.True(typeof(WIN32_MEMORY_RANGE_ENTRY).IsLayoutSequential);
    }

    [Fact]
    public void Win32MemoryRangeEntry_IsAPointerPair()
    {
        Assert.Equal(2 * IntPtr.Size, Unsafe.SizeOf<WIN32_MEMORY_RANGE_ENTRY>());
        if (IntPtr.Size == 8)
        {
            Assert.Equal(16, Unsafe.SizeOf<WIN32_MEMORY_RANGE_ENTRY>());
        }
    }

    [Fact]
    public void Win32MemoryRangeEntry_FieldsSitAtTheHeadersOffsets()
    {
        Assert.Equal(0, (int)Marshal.OffsetOf<WIN32_MEMORY_RANGE_ENTRY>(nameof(WIN32_MEMORY_RANGE_ENTRY.VirtualAddress)));
        Assert.Equal(IntPtr.Size, (int)Marshal.OffsetOf<WIN32_MEMORY_RANGE_ENTRY>(nameof(WIN32_MEMORY_RANGE_ENTRY.NumberOfBytes)));
    }
}
