using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using ProcmapQuery = Interop.Libc.ProcmapQuery;

namespace Sharpi.Prefault.Tests.Interop.Linux;

/// <summary>
/// struct procmap_query of include/uapi/linux/fs.h (Linux 6.11): nine __u64, four __u32, two __u64; 104 bytes on every
/// architecture, and the size is part of the PROCMAP_QUERY request number.
/// </summary>
[SupportedOSPlatform("linux")]
public sealed class ProcmapQueryLayoutTests
{
    [Fact]
    public void ProcmapQuery_IsBlittable()
    {
        Assert.False(RuntimeHelpers.IsReferenceOrContainsReferences<ProcmapQuery>());
        Assert.Equal(Unsafe.SizeOf<ProcmapQuery>(), Marshal.SizeOf<ProcmapQuery>());
    }

    [Fact]
    public void ProcmapQuery_IsLayoutSequential()
    {
        Assert.True(typeof(ProcmapQuery).IsLayoutSequential);
    }

    [Fact]
    public void ProcmapQuery_Is104Bytes_AsTheRequestNumberSays()
    {
        Assert.Equal(104, Unsafe.SizeOf<ProcmapQuery>());
        Assert.Equal(104u, (global::Interop.Libc.PROCMAP_QUERY >> 16) & 0x3fff);
        Assert.Equal(0xC0686611u, global::Interop.Libc.PROCMAP_QUERY);
    }

    [Theory]
    [InlineData(nameof(ProcmapQuery.Size), 0)]             // size
    [InlineData(nameof(ProcmapQuery.QueryFlags), 8)]       // query_flags
    [InlineData(nameof(ProcmapQuery.QueryAddress), 16)]    // query_addr
    [InlineData(nameof(ProcmapQuery.VmaStart), 24)]        // vma_start
    [InlineData(nameof(ProcmapQuery.VmaEnd), 32)]          // vma_end
    [InlineData(nameof(ProcmapQuery.VmaFlags), 40)]        // vma_flags
    [InlineData(nameof(ProcmapQuery.VmaPageSize), 48)]     // vma_page_size
    [InlineData(nameof(ProcmapQuery.VmaOffset), 56)]       // vma_offset
    [InlineData(nameof(ProcmapQuery.Inode), 64)]           // inode
    [InlineData(nameof(ProcmapQuery.DevMajor), 72)]        // dev_major
    [InlineData(nameof(ProcmapQuery.DevMinor), 76)]        // dev_minor
    [InlineData(nameof(ProcmapQuery.VmaNameSize), 80)]     // vma_name_size
    [InlineData(nameof(ProcmapQuery.BuildIdSize), 84)]     // build_id_size
    [InlineData(nameof(ProcmapQuery.VmaNameAddress), 88)]  // vma_name_addr
    [InlineData(nameof(ProcmapQuery.BuildIdAddress), 96)]  // build_id_addr
    public void ProcmapQuery_FieldSitsAtTheKernelsOffset(string field, int offset)
    {
        Assert.Equal(offset, (int)Marshal.OffsetOf<ProcmapQuery>(field));
    }
}
