using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using CachestatRange = Interop.Libc.CachestatRange;

namespace Sharpi.Prefault.Tests.Interop.Linux;

/// <summary>struct cachestat_range of include/uapi/linux/mman.h (Linux 6.5): { __u64 off; __u64 len; }, 16 bytes.</summary>
// A layout is fixed at compile time, so it is checked on every OS; the attribute tells the platform analyzer
// that these tests are about a Linux struct.
[SupportedOSPlatform("linux")]
public sealed class CachestatRangeLayoutTests
{
    [Fact]
    public void CachestatRange_IsBlittable()
    {
        Assert.False(RuntimeHelpers.IsReferenceOrContainsReferences<CachestatRange>());
        Assert.Equal(Unsafe.SizeOf<CachestatRange>(), Marshal.SizeOf<CachestatRange>());
    }

    [Fact]
    public void CachestatRange_IsLayoutSequential()
    {
        Assert.True(typeof(CachestatRange).IsLayoutSequential);
    }

    [Fact]
    public void CachestatRange_Is16Bytes()
    {
        Assert.Equal(16, Unsafe.SizeOf<CachestatRange>());
    }

    [Theory]
    [InlineData(nameof(CachestatRange.Offset), 0)] // off
    [InlineData(nameof(CachestatRange.Length), 8)] // len
    public void CachestatRange_FieldSitsAtTheKernelsOffset(string field, int offset)
    {
        Assert.Equal(offset, (int)Marshal.OffsetOf<CachestatRange>(field));
    }
}
