using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Cachestat = Interop.Libc.Cachestat;

namespace Sharpi.Prefault.Tests.Interop.Linux;

/// <summary>
/// struct cachestat of include/uapi/linux/mman.h (Linux 6.5): five __u64 page counts, 40 bytes on every architecture.
/// </summary>
// A layout is fixed at compile time, so it is checked on every OS; the attribute tells the platform analyzer
// that these tests are about a Linux struct.
[SupportedOSPlatform("linux")]
public sealed class CachestatLayoutTests
{
    [Fact]
    public void Cachestat_IsBlittable()
    {
        Assert.False(RuntimeHelpers.IsReferenceOrContainsReferences<Cachestat>());
        Assert.Equal(Unsafe.SizeOf<Cachestat>(), Marshal.SizeOf<Cachestat>());
    }

    [Fact]
    public void Cachestat_IsLayoutSequential()
    {
        Assert.True(typeof(Cachestat).IsLayoutSequential);
    }

    [Fact]
    public void Cachestat_Is40Bytes()
    {
        Assert.Equal(40, Unsafe.SizeOf<Cachestat>());
    }

    [Theory]
    [InlineData(nameof(Cachestat.Cached), 0)]           // nr_cache
    [InlineData(nameof(Cachestat.Dirty), 8)]            // nr_dirty
    [InlineData(nameof(Cachestat.Writeback), 16)]       // nr_writeback
    [InlineData(nameof(Cachestat.Evicted), 24)]         // nr_evicted
    [InlineData(nameof(Cachestat.RecentlyEvicted), 32)] // nr_recently_evicted
    public void Cachestat_FieldSitsAtTheKernelsOffset(string field, int offset)
    {
        Assert.Equal(offset, (int)Marshal.OffsetOf<Cachestat>(field));
    }
}
