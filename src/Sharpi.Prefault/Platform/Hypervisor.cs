using System.Buffers.Binary;
using System.Globalization;
using System.Runtime.Intrinsics.X86;
using System.Text;

namespace Sharpi.Prefault;

/// <summary>
/// Whether this process may run under a hypervisor, where a page the page cache just filled can still cost a host
/// fault at first access: the CPU's hypervisor-present bit on x86 (read once); true elsewhere, where no host can be
/// ruled out. A hidden bit only leaves those faults to the engine's first request: slower, never a failure.
/// </summary>
internal static class Hypervisor
{
    /// <summary>CPUID leaf 1, ECX.</summary>
    internal const int PresentBit = 31;

    /// <summary>False only where the CPU says no hypervisor runs this machine.</summary>
    internal static bool IsPresent { get; } = !X86Base.IsSupported || IsPresentIn(Leaf1Ecx());

    internal static int Leaf1Ecx() => X86Base.CpuId(1, 0).Ecx;

    internal static bool IsPresentIn(int leaf1Ecx) => (leaf1Ecx & (1 << PresentBit)) != 0;

    /// <summary>Where a hypervisor puts its 12-byte vendor signature (EBX, ECX, EDX).</summary>
    internal const int SignatureLeaf = 0x40000000;

    /// <summary>
    /// The hypervisor's vendor signature ("KVMKVMKVM"); null off x86, where the present bit is clear or the leaf holds
    /// none. Read at each call: only a report needs it. Under PVM it may name the hypervisor beneath.
    /// </summary>
    internal static string? ReadSignature()
    {
        if (!X86Base.IsSupported || !IsPresentIn(Leaf1Ecx()))
        {
            return null;
        }

        (_, int ebx, int ecx, int edx) = X86Base.CpuId(SignatureLeaf, 0);
        return DecodeSignature(ebx, ecx, edx);
    }

    /// <summary>Each register's bytes lowest first, trailing NULs dropped, non-printable bytes as <c>\xNN</c>; null where all are NUL.</summary>
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
