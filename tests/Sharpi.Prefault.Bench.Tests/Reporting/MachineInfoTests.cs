using Sharpi.Prefault.Bench;

namespace Sharpi.Prefault.Bench.Tests.Reporting;

/// <summary>The host line names the hypervisor by the signature CPUID gives.</summary>
public sealed class MachineInfoTests
{
    [Theory]
    [InlineData("KVMKVMKVM", "KVM (\"KVMKVMKVM\")")]
    [InlineData("Microsoft Hv", "Hyper-V (\"Microsoft Hv\")")]
    [InlineData("bhyve bhyve ", "bhyve (\"bhyve bhyve \")")]
    [InlineData("NewVisor", "\"NewVisor\"")]   // an unknown one is named by its signature alone
    [InlineData(null, null)]
    public void NameHypervisor_NamesTheProductWhereKnown(string? signature, string? expected) =>
        Assert.Equal(expected, MachineInfo.NameHypervisor(signature));
}
