using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using StatxBuffer = Interop.Libc.StatxBuffer;

namespace Sharpi.Prefault.Tests.Interop.Linux;

/// <summary>
/// struct statx as the kernel fills it: 256 bytes on every architecture, fields at the offsets of
/// include/uapi/linux/stat.h (checked with offsetof against the x86-64 headers). Only the fields the library reads
/// are declared, each at its explicit offset.
/// </summary>
// A layout is fixed at compile time, so it is checked on every OS; the attribute tells the platform analyzer
// that these tests are about a Linux struct.
[SupportedOSPlatform("linux")]
public sealed class StatxLayoutTests
{
    [Fact]
    public void StatxBuffer_IsBlittable()
    {
        Assert.False(RuntimeHelpers.IsReferenceOrContainsReferences<StatxBuffer>());
        Assert.Equal(Unsafe.SizeOf<StatxBuffer>(), Marshal.SizeOf<StatxBuffer>());
    }

    [Fact]
    public void StatxBuffer_IsLayoutExplicit()
    {
        Assert.True(typeof(StatxBuffer).IsExplicitLayout);
    }

    [Fact]
    public void StatxBuffer_Is256Bytes()
    {
        Assert.Equal(256, Unsafe.SizeOf<StatxBuffer>());
    }

    [Theory]
    [InlineData(nameof(StatxBuffer.Mask), 0)]          // stx_mask
    [InlineData(nameof(StatxBuffer.BlockSize), 4)]     // stx_blksize
    [InlineData(nameof(StatxBuffer.Uid), 20)]          // stx_uid
    [InlineData(nameof(StatxBuffer.Mode), 28)]         // stx_mode
    [InlineData(nameof(StatxBuffer.Inode), 32)]        // stx_ino
    [InlineData(nameof(StatxBuffer.Size), 40)]         // stx_size
    [InlineData(nameof(StatxBuffer.DevMajor), 136)]    // stx_dev_major
    [InlineData(nameof(StatxBuffer.DevMinor), 140)]    // stx_dev_minor
    [InlineData(nameof(StatxBuffer.DioMemAlign), 152)] // stx_dio_mem_align
    [InlineData(nameof(StatxBuffer.DioOffsetAlign), 156)] // stx_dio_offset_align
    public void StatxBuffer_FieldSitsAtTheKernelsOffset(string field, int offset)
    {
        Assert.Equal(offset, (int)Marshal.OffsetOf<StatxBuffer>(field));
    }
}
