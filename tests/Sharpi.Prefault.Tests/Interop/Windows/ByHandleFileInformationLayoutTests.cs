using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using BY_HANDLE_FILE_INFORMATION = Interop.Kernel32.BY_HANDLE_FILE_INFORMATION;

namespace Sharpi.Prefault.Tests.Interop;

/// <summary>
/// BY_HANDLE_FILE_INFORMATION (fileapi.h): 52 bytes, every FILETIME 4-aligned (two DWORDs), so the volume serial
/// number sits at 28 and the file index at 44 and 48.
/// </summary>
[SupportedOSPlatform("windows")]
public sealed class ByHandleFileInformationLayoutTests
{
    [Fact]
    public void ByHandleFileInformation_IsBlittable()
    {
        Assert.False(RuntimeHelpers.IsReferenceOrContainsReferences<BY_HANDLE_FILE_INFORMATION>());
        Assert.Equal(Unsafe.SizeOf<BY_HANDLE_FILE_INFORMATION>(), Marshal.SizeOf<BY_HANDLE_FILE_INFORMATION>());
    }

    [Fact]
    public void ByHandleFileInformation_Is52Bytes()
    {
        Assert.Equal(52, Unsafe.SizeOf<BY_HANDLE_FILE_INFORMATION>());
    }

    [Theory]
    [InlineData(nameof(BY_HANDLE_FILE_INFORMATION.FileAttributes), 0)]
    [InlineData(nameof(BY_HANDLE_FILE_INFORMATION.CreationTime), 4)]
    [InlineData(nameof(BY_HANDLE_FILE_INFORMATION.LastAccessTime), 12)]
    [InlineData(nameof(BY_HANDLE_FILE_INFORMATION.LastWriteTime), 20)]
    [InlineData(nameof(BY_HANDLE_FILE_INFORMATION.VolumeSerialNumber), 28)]
    [InlineData(nameof(BY_HANDLE_FILE_INFORMATION.FileSizeHigh), 32)]
    [InlineData(nameof(BY_HANDLE_FILE_INFORMATION.FileSizeLow), 36)]
    [InlineData(nameof(BY_HANDLE_FILE_INFORMATION.NumberOfLinks), 40)]
    [InlineData(nameof(BY_HANDLE_FILE_INFORMATION.FileIndexHigh), 44)]
    [InlineData(nameof(BY_HANDLE_FILE_INFORMATION.FileIndexLow), 48)]
    public void ByHandleFileInformation_FieldSitsAtTheHeadersOffset(string field, int offset)
    {
        Assert.Equal(offset, (int)Marshal.OffsetOf<BY_HANDLE_FILE_INFORMATION>(field));
    }
}
