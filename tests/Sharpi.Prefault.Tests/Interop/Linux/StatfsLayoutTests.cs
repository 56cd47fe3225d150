using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using StatfsBuffer = Interop.Libc.StatfsBuffer;

namespace Sharpi.Prefault.Tests.Interop.Linux;

/// <summary>
/// struct statfs as glibc declares it on x86-64 (bits/statfs.h): 120 bytes, f_type a long at offset 0, then f_bsize,
/// f_blocks, f_bfree and f_bavail. The library declares those five, in a buffer with room to spare for what fstatfs writes.
/// </summary>
// A layout is fixed at compile time, so it is checked on every OS; the attribute tells the platform analyzer
// that these tests are about a Linux struct.
[SupportedOSPlatform("linux")]
public sealed class StatfsLayoutTests
{
    /// <summary>sizeof(struct statfs) on x86-64 (and arm64) glibc.</summary>
    private const int NativeSize = 120;

    [Fact]
    public void StatfsBuffer_IsBlittable()
    {
        Assert.False(RuntimeHelpers.IsReferenceOrContainsReferences<StatfsBuffer>());
        Assert.Equal(Unsafe.SizeOf<StatfsBuffer>(), Marshal.SizeOf<StatfsBuffer>());
    }

    [Fact]
    public void StatfsBuffer_IsLayoutExplicit()
    {
        Assert.True(typeof(StatfsBuffer).IsExplicitLayout);
    }

    [Fact]
    public void StatfsBuffer_HoldsAllThatFstatfsWrites()
    {
        Assert.True(Unsafe.SizeOf<StatfsBuffer>() >= NativeSize);
    }

    [Fact]
    public void StatfsBuffer_TypeSitsAtTheOffsetOfFType()
    {
        // f_type is __fsword_t, a long (8 bytes on x86-64), followed by f_bsize at 8.
        Assert.Equal(0, (int)Marshal.OffsetOf<StatfsBuffer>(nameof(StatfsBuffer.Type)));
    }

    [Fact]
    public void StatfsBuffer_BlockCountsSitAtTheOffsetsOfFBlocksFBfreeAndFBavail()
    {
        // f_bsize is a long at 8; f_blocks, f_bfree and f_bavail are fsblkcnt_t (64-bit) at 16, 24 and 32.
        Assert.Equal(8, (int)Marshal.OffsetOf<StatfsBuffer>(nameof(StatfsBuffer.BlockSize)));
        Assert.Equal(16, (int)Marshal.OffsetOf<StatfsBuffer>(nameof(StatfsBuffer.Blocks)));
        Assert.Equal(24, (int)Marshal.OffsetOf<StatfsBuffer>(nameof(StatfsBuffer.BlocksFree)));
        Assert.Equal(32, (int)Marshal.OffsetOf<StatfsBuffer>(nameof(StatfsBuffer.BlocksAvailable)));
    }
}
