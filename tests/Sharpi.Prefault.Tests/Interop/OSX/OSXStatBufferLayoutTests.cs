using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using OSXStatBuffer = Interop.Libc.OSXStatBuffer;

namespace Sharpi.Prefault.Tests.Interop;

/// <summary>
/// struct stat with 64-bit inodes (macOS sys/stat.h, __DARWIN_STRUCT_STAT64): 144 bytes; st_dev, st_mode, st_ino and
/// st_size at the header's offsets (st_size after four 16-byte timespecs that start 8-aligned at 32).
/// </summary>
// A layout is fixed at compile time, so it is checked on every OS; the attribute tells the platform analyzer
// that these tests are about a macOS struct.
[SupportedOSPlatform("macos")]
public sealed class OSXStatBufferLayoutTests
{
    [Fact]
    public void OSXStatBuffer_IsBlittable()
    {
        Assert.False(RuntimeHelpers.IsReferenceOrContainsReferences<OSXStatBuffer>());
        Assert.Equal(Unsafe.SizeOf<OSXStatBuffer>(), Marshal.SizeOf<OSXStatBuffer>());
    }

    [Fact]
    public void OSXStatBuffer_Is144Bytes()
    {
        Assert.Equal(144, Unsafe.SizeOf<OSXStatBuffer>());
    }

    [Theory]
    [InlineData(nameof(OSXStatBuffer.Device), 0)] // st_dev
    [InlineData(nameof(OSXStatBuffer.Mode), 4)]   // st_mode
    [InlineData(nameof(OSXStatBuffer.Inode), 8)]  // st_ino
    [InlineData(nameof(OSXStatBuffer.Size), 96)]  // st_size
    public void OSXStatBuffer_FieldSitsAtTheHeadersOffset(string field, int offset)
    {
        Assert.Equal(offset, (int)Marshal.OffsetOf<OSXStatBuffer>(field));
    }
}
