using System.Buffers.Binary;
using System.Globalization;
using System.Runtime.Intrinsics.X86;
using System.Text;

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

    /// <summary>CPUID leaf 0x40000000: where a hypervisor puts its 12-byte vendor signature, in EBX, ECX and EDX.</summary>
    internal const int SignatureLeaf = 0x40000000;

    /// <summary>
    /// The vendor signature the CPU reports for the hypervisor under this process ("KVMKVMKVM", "Microsoft Hv",
    /// "VMwareVMware"), from CPUID leaf 0x40000000; null off x86, where the present bit is clear (the leaf is then
    /// no hypervisor's and may hold anything), or where the leaf holds no signature. Asked on each call, not cached:
    /// only a report needs it.
    /// </summary>
    /// <remarks>
    /// A hypervisor that runs its guests' kernels in user mode and answers their CPUID through an instruction of its
    /// own (PVM) can leave a plain CPUID to the hypervisor under it: the signature then names that one.
    /// </remarks>
    internal static string? ReadSignature()
    {
        if (!X86Base.IsSupported || !IsPresentIn(Leaf1Ecx()))
        {
            return null;
        }

        (_, int ebx, int ecx, int edx) = X86Base.CpuId(SignatureLeaf, 0);
        return DecodeSignature(ebx, ecx, edx);
    }

    /// <summary>
    /// The signature held in <paramref name="ebx"/>, <paramref name="ecx"/>, <paramref name="edx"/> (each register's
    /// bytes lowest first), trailing NULs dropped and any other byte outside printable ASCII written as <c>\xNN</c>;
    /// null where all twelve bytes are NUL.
    /// </summary>
    internal static string? DecodeSignature(int ebx, int ecx, int edx)
    {
        Span<byte> bytes = stackalloc byte[12];
        BinaryPrimitives.WriteInt32LittleEndian(bytes, ebx);
        BinaryPrimitives.WriteInt32LittleEndian(bytes[4..], ecx);
        BinaryPrimitives.WriteInt32LittleEndian(bytes[8..], edx);

        int length = bytes.LastIndexOfAnyExcept((byte)0) + 1;
        if (length == 0)
        {
            return null;
        }

        var text = new StringBuilder(length);
        foreach (byte b in bytes[..length])
        {
            if (b is >= 0x20 and < 0x7F)
            {
                text.Append((char)b);
            }
            else
            {
                text.Append(CultureInfo.InvariantCulture, $"\\x{b:x2}");
            }
        }

        return text.ToString();
    }
}
