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

    [ConditionalFact(typeof(Requirements), nameof(Requirements.X86Linux))]
    public void Leaf1Ecx_IsTheRegisterTheKernelReadItsFlagsFrom()
    {
        // Leaf 1 ECX: SSE3 (the kernel's "pni", bit 0), SSE4.1 (19), SSE4.2 (20), POPCNT (23) and the hypervisor bit (31).
        // Several bits of one register, so a wrong leaf, register or bit cannot match them all.
        HashSet<string> flags = Requirements.KernelFlags()!;
        int ecx = Hypervisor.Leaf1Ecx();
        foreach ((int bit, string flag) in new[] { (0, "pni"), (19, "sse4_1"), (20, "sse4_2"), (23, "popcnt"), (Hypervisor.PresentBit, "hypervisor") })
        {
            Assert.True(flags.Contains(flag) == ((ecx & (1 << bit)) != 0), $"bit {bit} ({flag}): ECX 0x{ecx:x8}, kernel {(flags.Contains(flag) ? "has" : "lacks")} it");
        }

        Assert.Equal(flags.Contains("hypervisor"), Hypervisor.IsPresent);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.NonX86))]
    public void IsPresent_WhereTheCpuHasNoSuchBit_IsTrue() => Assert.True(Hypervisor.IsPresent);

    /// <summary>The registers as KVM, Hyper-V, VMware and bhyve fill them (EBX, ECX, EDX, each read lowest byte first).</summary>
    [Theory]
    [InlineData("KVMKVMKVM\0\0\0", "KVMKVMKVM")]       // KVM pads with NULs, which are dropped
    [InlineData("Microsoft Hv", "Microsoft Hv")]
    [InlineData("VMwareVMware", "VMwareVMware")]
    [InlineData("bhyve bhyve ", "bhyve bhyve ")]      // a trailing space is the signature's own
    [InlineData("XenVMMXenVMM", "XenVMMXenVMM")]
    [InlineData("A\u0001B\0\0\0\0\0\0\0\0\0", "A\\x01B")]       // a byte outside printable ASCII is written escaped
    public void DecodeSignature_ReadsTheTwelveBytesInRegisterOrder(string signature, string expected)
    {
        (int ebx, int ecx, int edx) = Registers(signature);
        Assert.Equal(expected, Hypervisor.DecodeSignature(ebx, ecx, edx));
    }

    [Fact]
    public void DecodeSignature_OfTwelveNuls_IsNull() => Assert.Null(Hypervisor.DecodeSignature(0, 0, 0));

    [ConditionalFact(typeof(Requirements), nameof(Requirements.X86Linux))]
    public void ReadSignature_IsNullWhereTheCpuReportsNoHypervisor()
    {
        // A hypervisor may leave the leaf empty; without one the leaf is no hypervisor's and must not be read as one.
        string? signature = Hypervisor.ReadSignature();
        Assert.True(Hypervisor.IsPresent || signature is null, signature);
        Assert.True(signature is null || signature.Length is > 0 and <= 12 * 4, signature);
    }

    private static (int Ebx, int Ecx, int Edx) Registers(string signature)
    {
        byte[] bytes = System.Text.Encoding.Latin1.GetBytes(signature);
        Assert.Equal(12, bytes.Length);
        return (BitConverter.ToInt32(bytes, 0), BitConverter.ToInt32(bytes, 4), BitConverter.ToInt32(bytes, 8));
    }
}
