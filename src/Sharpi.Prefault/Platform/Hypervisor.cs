using System.Runtime.Intrinsics.X86;

namespace Sharpi.Prefault;

/// <summary>
/// Whether this process may run under a hypervisor, where a page the page cache just filled can still cost a fault at
/// its first CPU access, on the host (memory never touched since the VM booted, blocks a balloon gave back; see
/// <see cref="TouchAfterPopulate"/>). On x86 the CPU's hypervisor-present bit (CPUID leaf 1, ECX bit 31), which KVM
/// (Firecracker, QEMU, Cloud Hypervisor), Xen, Hyper-V and VMware set for their guests and bare metal leaves clear;
/// read once per process. Where no such bit exists (every other CPU), true: a host cannot be ruled out.
/// </summary>
/// <remarks>
/// A hypervisor can hide the bit (<c>-cpu host,-hypervisor</c>, mostly for GPU passthrough, whose pinned memory the
/// host never takes back), and an x86 process under a translator (Rosetta for Linux, FEX) sees the translator's
/// answer. Where the bit is clear in a VM whose host still maps memory lazily, the host's faults land in the engine's
/// first request instead of the prefault, as before the sampling existed: slower, never a failure.
/// </remarks>
internal static class Hypervisor
{
    /// <summary>CPUID leaf 1, ECX: the hypervisor-present bit.</summary>
    internal const int PresentBit = 31;

    /// <summary>False only where the CPU says no hypervisor runs this machine.</summary>
    internal static bool IsPresent { get; } = !X86Base.IsSupported || IsPresentIn(Leaf1Ecx());

    /// <summary>ECX of CPUID leaf 1 (x86 only: the feature bits, <see cref="PresentBit"/> among them).</summary>
    internal static int Leaf1Ecx() => X86Base.CpuId(1, 0).Ecx;

    /// <summary>Whether <paramref name="leaf1Ecx"/> has the hypervisor-present bit set.</summary>
    internal static bool IsPresentIn(int leaf1Ecx) => (leaf1Ecx & (1 << PresentBit)) != 0;
}
