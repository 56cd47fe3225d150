using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Fiemap = Interop.Libc.Fiemap;
using FiemapExtent = Interop.Libc.FiemapExtent;

namespace Sharpi.Prefault.Tests.Interop.Linux;

/// <summary>
/// struct fiemap and struct fiemap_extent of include/uapi/linux/fiemap.h: 32 and 56 bytes, the extents following the
/// header in one buffer, FS_IOC_FIEMAP encoding the header's size.
/// </summary>
// A layout is fixed at compile time, so it is checked on every OS; the attribute tells the platform analyzer
// that these tests are about Linux structs.
[SupportedOSPlatform("linux")]
public sealed class FiemapLayoutTests
{
    [Fact]
    public void Fiemap_AndItsExtent_AreBlittableAndSequential()
    {
        Assert.False(RuntimeHelpers.IsReferenceOrContainsReferences<Fiemap>());
        Assert.False(RuntimeHelpers.IsReferenceOrContainsReferences<FiemapExtent>());
        Assert.True(typeof(Fiemap).IsLayoutSequential);
        Assert.True(typeof(FiemapExtent).IsLayoutSequential);
    }

    [Fact]
    public void Fiemap_Is32Bytes_AndItsExtent56()
    {
        Assert.Equal(32, Unsafe.SizeOf<Fiemap>());
        Assert.Equal(56, Unsafe.SizeOf<FiemapExtent>());
    }

    [Fact]
    public void FsIocFiemap_IsIowrOfTheHeadersSize()
    {
        // _IOWR('f', 11, struct fiemap): direction 3 in bits 30-31, size in bits 16-29, type 'f', number 11.
        uint encoded = (3u << 30) | ((uint)Unsafe.SizeOf<Fiemap>() << 16) | ((uint)'f' << 8) | 11;
        Assert.Equal(global::Interop.Libc.FS_IOC_FIEMAP, encoded);
    }

    [Theory]
    [InlineData(nameof(Fiemap.Start), 0)]          // fm_start
    [InlineData(nameof(Fiemap.Length), 8)]         // fm_length
    [InlineData(nameof(Fiemap.Flags), 16)]         // fm_flags
    [InlineData(nameof(Fiemap.MappedExtents), 20)] // fm_mapped_extents
    [InlineData(nameof(Fiemap.ExtentCount), 24)]   // fm_extent_count
    public void Fiemap_FieldSitsAtTheKernelsOffset(string field, int offset)
    {
        Assert.Equal(offset, (int)Marshal.OffsetOf<Fiemap>(field));
    }

    [Theory]
    [InlineData(nameof(FiemapExtent.Logical), 0)]   // fe_logical
    [InlineData(nameof(FiemapExtent.Physical), 8)]  // fe_physical
    [InlineData(nameof(FiemapExtent.Length), 16)]   // fe_length
    [InlineData(nameof(FiemapExtent.Flags), 40)]    // fe_flags
    public void FiemapExtent_FieldSitsAtTheKernelsOffset(string field, int offset)
    {
        Assert.Equal(offset, (int)Marshal.OffsetOf<FiemapExtent>(field));
    }
}
