using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using PSAPI_WORKING_SET_EX_INFORMATION = Interop.Kernel32.PSAPI_WORKING_SET_EX_INFORMATION;

namespace Sharpi.Prefault.Tests.Interop.Windows;

/// <summary>
/// PSAPI_WORKING_SET_EX_INFORMATION (psapi.h): { PVOID VirtualAddress; PSAPI_WORKING_SET_EX_BLOCK VirtualAttributes; },
/// a pointer and a ULONG_PTR of bit fields, 16 bytes on x64; QueryWorkingSetEx takes an array of them.
/// </summary>
// A layout is fixed at compile time, so it is checked on every OS; the attribute tells the platform analyzer
// that these tests are about a Windows struct.
[SupportedOSPlatform("windows")]
public sealed class PsapiWorkingSetExInformationLayoutTests
{
    [Fact]
    public void PsapiWorkingSetExInformation_IsBlittable()
    {
        Assert.False(RuntimeHelpers.IsReferenceOrContainsReferences<PSAPI_WORKING_SET_EX_INFORMATION>());
        Assert.Equal(Unsafe.SizeOf<PSAPI_WORKING_SET_EX_INFORMATION>(), Marshal.SizeOf<PSAPI_WORKING_SET_EX_INFORMATION>());
    }

    [Fact]
    public void PsapiWorkingSetExInformation_IsLayoutSequential()
    {
        Assert.True(typeof(PSAPI_WORKING_SET_EX_INFORMATION).IsLayoutSequential);
    }

    [Fact]
    public void PsapiWorkingSetExInformation_IsAPointerPair()
    {
        Assert.Equal(2 * IntPtr.Size, Unsafe.SizeOf<PSAPI_WORKING_SET_EX_INFORMATION>());
        if (IntPtr.Size == 8)
        {
            Assert.Equal(16, Unsafe.SizeOf<PSAPI_WORKING_SET_EX_INFORMATION>());
        }
    }

    [Fact]
    public void PsapiWorkingSetExInformation_FieldsSitAtTheHeadersOffsets()
    {
        Assert.Equal(0, (int)Marshal.OffsetOf<PSAPI_WORKING_SET_EX_INFORMATION>(nameof(PSAPI_WORKING_SET_EX_INFORMATION.VirtualAddress)));
        Assert.Equal(IntPtr.Size, (int)Marshal.OffsetOf<PSAPI_WORKING_SET_EX_INFORMATION>(nameof(PSAPI_WORKING_SET_EX_INFORMATION.VirtualAttributes)));
    }

    [Theory]
    [InlineData(0b0, false)]
    [InlineData(0b1, true)]
    [InlineData(0b1111_1110, false)] // share count, protection, shared: set, but the page is not valid
    [InlineData(0b1000_0001, true)]
    public void PsapiWorkingSetExInformation_IsValidReadsBitZero(ulong attributes, bool valid)
    {
        var info = new PSAPI_WORKING_SET_EX_INFORMATION { VirtualAttributes = (nuint)attributes };
        Assert.Equal(valid, info.IsValid);
    }
}
