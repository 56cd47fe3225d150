using System.Runtime.Intrinsics.X86;

namespace Sharpi.Prefault;

/// <summary>
/// Whether this process may run under a hypervisor: the one place where a page the page cache just filled can still
/// cost a fault at its first CPU access, on the host (memory never touched since the VM booted, blocks a balloon gave
/// back; see <see cref="TouchAfterPopulate"/>). On x86 the CPU's hypervisor-present bit (CPUID leaf 1, ECX bit 31),
/// which KVM (Firecracker, QEMU, Cloud Hypervisor), Xen, Hyper-V and VMware set for their guests and bare metal
/// leaves clear; read once per process. Where no such bit exists (arm64), true: a host cannot be ruled out.
/// </summary>
internal static class Hypervisor
{
    private const int HypervisorPresentBit = 31;

    /// <summary>False only where the CPU says no hypervisor runs this machine.</summary>
    internal static bool IsPresent { get; } = Probe();

    private static bool Probe()
    {
        if (!X86Base.IsSupported)
        {
            return true;
        }

        (_, _, int ecx, _) = X86Base.CpuId(1, 0);
        return (ecx & (1 << HypervisorPresentBit)) != 0;
    }
}
