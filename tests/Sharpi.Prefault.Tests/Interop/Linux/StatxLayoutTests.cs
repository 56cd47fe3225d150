using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Tests.Interop.Linux;

/// <summary>The struct statx the kernel fills: 256 bytes, fields at the offsets of include/uapi/linux/stat.h.</summary>
// A layout is fixed at compile time, so it is checked on every OS; the attribute tells the platform analyzer
// that these tests are about a Linux struct.
[SupportedOSPlatform("linux")]
public sealed class StatxLayoutTests
{
    [Fact]
    public void StatxBuffer_Is256Bytes()
    {
        Assert.Equal(256, Unsafe.SizeOf<global::Interop.Libc.StatxBuffer>());
    }

    [Theory]
    [InlineData(nameof(global::Interop.Libc.StatxBuffer.Mask), 0)]
    [InlineData(nameof(global::Interop.Libc.StatxBuffer.Mode), 28)]
    [InlineData(nameof(global::Interop.Libc.StatxBuffer.Size), 40)]
    [InlineData(nameof(global::Interop.Libc.StatxBuffer.DioMemAlign), 152)]
    [InlineData(nameof(global::Interop.Libc.StatxBuffer.DioOffsetAlign), 156)]
    public void StatxBuffer_FieldSitsAtTheKernelsOffset(string field, int offset)
    {
        Assert.Equal(offset, (int)Marshal.OffsetOf<global::Interop.Libc.StatxBuffer>(field));
    }
}
