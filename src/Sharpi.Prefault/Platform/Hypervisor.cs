using System.Buffers.Binary;
using System.Globalization;
using System.Runtime.Intrinsics.X86;
using System.Text;

namespace Sharpi.Prefault;

/// <summary>Whether a host may still fault populated pages: x86's hypervisor-present bit, read once; true elsewhere.</summary>
internal static class Hypervisor
{
    /// <summary>CPUID leaf 1, ECX.</summary>
    internal const int PresentBit = 31;

    internal static bool IsPresent { get; } = !X86Base.IsSupported || IsPresentIn(Leaf1Ecx());

    internal static int Leaf1Ecx() => X86Base.CpuId(1, 0).Ecx;

    internal static bool IsPresentIn(int leaf1Ecx) => (leaf1Ecx & (1 << PresentBit)) != 0;

    /// <summary>A 12-byte vendor signature in EBX, ECX, EDX.</summary>
    internal const int SignatureLeaf = 0x40000000;

    /// <summary>"KVMKVMKVM" and the like; null off x86, without the present bit or a signature. Under PVM, the host's host.</summary>
    internal static string? ReadSignature()
    {
        if (!X86Base.IsSupported || !IsPresentIn(Leaf1Ecx()))
        {
            return null;
        }

        (_, int ebx, int ecx, int edx) = X86Base.CpuId(SignatureLeaf, 0);
        return DecodeSignature(ebx, ecx, edx);
    }

    /// <summary>Non-printable bytes as <c>\xNN</c>; null where all are NUL.</summary>
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
