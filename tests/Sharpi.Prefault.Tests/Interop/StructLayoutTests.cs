using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Kernel32 = Interop.Kernel32;
using Libc = Interop.Libc;

namespace Sharpi.Prefault.Tests.Interop;

/// <summary>
/// Every native struct the library passes to the OS, in the style of TerraFX.Interop.Windows: blittable, the layout
/// it declares, the C size, and each declared field at the C header's offset (64-bit layouts: the library's native
/// support is x86-64 and arm64). A layout is fixed at compile time, so all are checked on every OS.
/// </summary>
// The structs are per OS, and only their layout is read here (no call is made): the platform analyzer's check does not apply.
#pragma warning disable CA1416
public sealed class StructLayoutTests
{
    /// <summary>One struct: its managed type, the layout it declares, its size in bytes, and its fields' offsets.</summary>
    public sealed record Layout(Type Type, LayoutKind Kind, int Size, (string Field, int Offset)[] Fields, Func<bool> ContainsReferences, Func<int> ManagedSize)
    {
        public override string ToString() => Type.Name;
    }

    private static Layout Of<T>(LayoutKind kind, int size, params (string Field, int Offset)[] fields)
        where T : struct =>
        new(typeof(T), kind, size, fields, RuntimeHelpers.IsReferenceOrContainsReferences<T>, Unsafe.SizeOf<T>);

    public static TheoryData<Layout> Structs => new()
    {
        // struct statx (include/uapi/linux/stat.h): 256 bytes on every architecture; only the fields read are declared.
        Of<Libc.StatxBuffer>(LayoutKind.Explicit, 256,
            ("Mask", 0), ("BlockSize", 4), ("Uid", 20), ("Mode", 28), ("Inode", 32), ("Size", 40), ("DevMajor", 136),
            ("DevMinor", 140), ("DioMemAlign", 152), ("DioOffsetAlign", 156)),
        // struct statfs (glibc bits/statfs.h, x86-64 and arm64): 120 bytes, in a buffer with room to spare.
        Of<Libc.StatfsBuffer>(LayoutKind.Explicit, 256, ("Type", 0), ("BlockSize", 8), ("Blocks", 16), ("BlocksFree", 24), ("BlocksAvailable", 32)),
        // struct cachestat and cachestat_range (include/uapi/linux/mman.h, Linux 6.5).
        Of<Libc.Cachestat>(LayoutKind.Sequential, 40, ("Cached", 0), ("Dirty", 8), ("Writeback", 16), ("Evicted", 24), ("RecentlyEvicted", 32)),
        Of<Libc.CachestatRange>(LayoutKind.Sequential, 16, ("Offset", 0), ("Length", 8)),
        // struct fiemap and fiemap_extent (include/uapi/linux/fiemap.h): the extents follow the header in one buffer.
        Of<Libc.Fiemap>(LayoutKind.Sequential, 32, ("Start", 0), ("Length", 8), ("Flags", 16), ("MappedExtents", 20), ("ExtentCount", 24)),
        Of<Libc.FiemapExtent>(LayoutKind.Sequential, 56, ("Logical", 0), ("Physical", 8), ("Length", 16), ("Flags", 40)),
        // struct iovec (sys/uio.h): { void *iov_base; size_t iov_len; }.
        Of<Libc.IOVector>(LayoutKind.Sequential, 16, ("Base", 0), ("Count", 8)),
        // struct flock (asm-generic/fcntl.h, 64-bit Linux): l_start at 8 after two shorts and padding.
        Of<Libc.FileLock>(LayoutKind.Explicit, 32, ("Type", 0), ("Whence", 2), ("Start", 8), ("Length", 16), ("Pid", 24)),
        // struct rlimit (sys/resource.h): rlim_t is unsigned long on Linux and 64 bits on macOS.
        Of<Libc.RLimit>(LayoutKind.Sequential, 16, ("Current", 0), ("Maximum", 8)),
        // struct stat with 64-bit inodes (macOS, __DARWIN_STRUCT_STAT64): st_size after four 16-byte timespecs at 32.
        Of<Libc.OSXStatBuffer>(LayoutKind.Explicit, 144, ("Device", 0), ("Mode", 4), ("Inode", 8), ("Size", 96)),
        // vm_region_basic_info_data_64_t (mach/vm_region.h, #pragma pack(4)): nine ints, the 64-bit offset at 20.
        Of<Libc.VmRegionBasicInfo64>(LayoutKind.Explicit, 36,
            ("Protection", 0), ("MaxProtection", 4), ("Inheritance", 8), ("Shared", 12), ("Reserved", 16), ("Offset", 20),
            ("Behavior", 28), ("UserWiredCount", 32)),
        // WIN32_MEMORY_RANGE_ENTRY (memoryapi.h): { PVOID VirtualAddress; SIZE_T NumberOfBytes; }.
        Of<Kernel32.WIN32_MEMORY_RANGE_ENTRY>(LayoutKind.Sequential, 16, ("VirtualAddress", 0), ("NumberOfBytes", 8)),
        // PSAPI_WORKING_SET_EX_INFORMATION (psapi.h): a pointer and a ULONG_PTR of bit fields.
        Of<Kernel32.PSAPI_WORKING_SET_EX_INFORMATION>(LayoutKind.Sequential, 16, ("VirtualAddress", 0), ("VirtualAttributes", 8)),
        // MEMORY_BASIC_INFORMATION (winnt.h), 64-bit: RegionSize at 24 after PartitionId's padding.
        Of<Kernel32.MEMORY_BASIC_INFORMATION>(LayoutKind.Sequential, 48,
            ("BaseAddress", 0), ("AllocationBase", 8), ("AllocationProtect", 16), ("PartitionId", 20), ("RegionSize", 24),
            ("State", 32), ("Protect", 36), ("Type", 40)),
        // BY_HANDLE_FILE_INFORMATION (fileapi.h): every FILETIME 4-aligned, so the file index sits at 44 and 48.
        Of<Kernel32.BY_HANDLE_FILE_INFORMATION>(LayoutKind.Sequential, 52,
            ("FileAttributes", 0), ("CreationTime", 4), ("LastAccessTime", 12), ("LastWriteTime", 20), ("VolumeSerialNumber", 28),
            ("FileSizeHigh", 32), ("FileSizeLow", 36), ("NumberOfLinks", 40), ("FileIndexHigh", 44), ("FileIndexLow", 48)),
    };

    [Theory]
    [MemberData(nameof(Structs))]
    public void Struct_IsBlittable_WithTheDeclaredLayoutAndTheNativeSize(Layout layout)
    {
        Assert.False(layout.ContainsReferences(), $"{layout.Type.Name} holds references");
        Assert.Equal(layout.ManagedSize(), Marshal.SizeOf(layout.Type));
        Assert.Equal(layout.Kind, layout.Type.StructLayoutAttribute!.Value);
        Assert.Equal(layout.Size, layout.ManagedSize());
    }

    [Theory]
    [MemberData(nameof(Structs))]
    public void Struct_FieldsSitAtTheHeadersOffsets(Layout layout)
    {
        foreach ((string field, int offset) in layout.Fields)
        {
            Assert.True(offset == (int)Marshal.OffsetOf(layout.Type, field), $"{layout.Type.Name}.{field} at {Marshal.OffsetOf(layout.Type, field)}, not {offset}");
        }
    }

    [Fact]
    public void FiemapIoctl_EncodesTheHeadersSize()
    {
        // _IOWR('f', 11, struct fiemap): direction 3 in bits 30-31, size in bits 16-29, type 'f', number 11.
        uint encoded = (3u << 30) | ((uint)Unsafe.SizeOf<Libc.Fiemap>() << 16) | ((uint)'f' << 8) | 11;
        Assert.Equal(Libc.FS_IOC_FIEMAP, encoded);
    }

    [Fact]
    public void VmRegionBasicInfo64_IsTheCountOfIntsMachSays()
    {
        Assert.Equal((int)global::Interop.OSXConstants.VM_REGION_BASIC_INFO_COUNT_64 * sizeof(int), Unsafe.SizeOf<Libc.VmRegionBasicInfo64>());
    }
}
#pragma warning restore CA1416
