using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Platform;

/// <summary>The CPU's hypervisor-present bit (CPUID leaf 1, ECX bit 31), against what the kernel read from CPUID at boot.</summary>
public sealed class HypervisorTests
{
    [Theory]
    [InlineData(int.MinValue, true)]      // bit 31 alone
    [InlineData(-1, true)]
    [InlineData(int.MaxValue, false)]     // every bit but 31
    [InlineData(0, false)]
    public void IsPresentIn_ReadsBit31(int leaf1Ecx, bool expected) => Assert.Equal(expected, Hypervisor.IsPresentIn(leaf1Ecx));

    [X86LinuxFact]
    public void Leaf1Ecx_IsTheRegisterTheKernelReadItsFlagsFrom()
    {
        // Leaf 1 ECX: SSE3 (the kernel's "pni", bit 0), SSE4.1 (19), SSE4.2 (20), POPCNT (23) and the hypervisor bit (31).
        // Several bits of one register, so a wrong leaf, register or bit cannot match them all.
        HashSet<string> flags = X86LinuxFactAttribute.KernelFlags()!;
        int ecx = Hypervisor.Leaf1Ecx();
        foreach ((int bit, string flag) in new[] { (0, "pni"), (19, "sse4_1"), (20, "sse4_2"), (23, "popcnt"), (Hypervisor.PresentBit, "hypervisor") })
        {
            Assert.True(flags.Contains(flag) == ((ecx & (1 << bit)) != 0), $"bit {bit} ({flag}): ECX 0x{ecx:x8}, kernel {(flags.Contains(flag) ? "has" : "lacks")} it");
        }

        Assert.Equal(flags.Contains("hypervisor"), Hypervisor.IsPresent);
    }

    [NonX86Fact]
    public void IsPresent_WhereTheCpuHasNoSuchBit_IsTrue() => Assert.True(Hypervisor.IsPresent);
}
