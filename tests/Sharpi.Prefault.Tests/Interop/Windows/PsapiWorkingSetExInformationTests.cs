using System.Runtime.Versioning;
using PSAPI_WORKING_SET_EX_INFORMATION = Interop.Kernel32.PSAPI_WORKING_SET_EX_INFORMATION;

namespace Sharpi.Prefault.Tests.Interop.Windows;

/// <summary>PSAPI_WORKING_SET_EX_BLOCK's Valid bit (its layout is in StructLayoutTests).</summary>
[SupportedOSPlatform("windows")]
public sealed class PsapiWorkingSetExInformationTests
{
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
