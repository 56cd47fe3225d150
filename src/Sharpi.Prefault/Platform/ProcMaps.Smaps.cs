using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>
/// One smaps mapping's figures that decide whether its pages may be dropped (bytes; Anonymous: pages written since
/// mapped; LockedFlag: VM_LOCKED).
/// </summary>
internal readonly record struct SmapsFigures(long RssBytes, long AnonymousBytes, long LockedBytes, bool LockedFlag)
{
    /// <summary>In neither Rss nor Anonymous; a private one's written pages exist nowhere else.</summary>
    internal bool IsHugetlb { get; init; }

    /// <summary>Swap, or SwapPss where larger.</summary>
    internal long SwapBytes { get; init; }

    internal bool IsLocked => LockedFlag || LockedBytes > 0;

    /// <summary>Bytes only this mapping holds, resident or swapped.</summary>
    internal long PrivateDataBytes => AnonymousBytes + SwapBytes;
}

/// <summary>The maps lines and, index for index, each mapping's figures.</summary>
internal sealed record SmapsSnapshot(ProcMapEntry[] Maps, SmapsFigures[] Figures)
{
    internal static readonly SmapsSnapshot Empty = new([], []);
}

internal static partial class ProcMaps
{
    internal const string SelfSmapsPath = "/proc/self/smaps";

    /// <summary>Sorted; empty when /proc is unreadable.</summary>
    internal static SmapsSnapshot ReadSelfSmaps() =>
        KernelFile.TryReadText(SelfSmapsPath) is string text ? ParseSmaps(text) : SmapsSnapshot.Empty;

    // A mapping: its maps line, "Key:   value kB" lines, one "VmFlags: rd mr" line.
    internal static SmapsSnapshot ParseSmaps(string text)
    {
        var maps = new List<ProcMapEntry>();
        var figures = new List<SmapsFigures>();
        SmapsFigures current = default;
        foreach (string line in text.Split('\n'))
        {
            if (TryParseLine(line, out ProcMapEntry entry))
            {
                if (maps.Count > 0)
                {
                    figures.Add(current);
                }

                maps.Add(entry);
                current = default;
            }
            else if (maps.Count > 0)
            {
                current = ApplyField(current, line);
            }
        }

        if (maps.Count > 0)
        {
            figures.Add(current);
        }

        return new SmapsSnapshot([.. maps], [.. figures]);
    }

    private static SmapsFigures ApplyField(SmapsFigures figures, ReadOnlySpan<char> line)
    {
        int colon = line.IndexOf(':');
        if (colon <= 0)
        {
            return figures;
        }

        ReadOnlySpan<char> key = line[..colon];
        ReadOnlySpan<char> value = line[(colon + 1)..].Trim();
        if (key.SequenceEqual("VmFlags"))
        {
            for (ReadOnlySpan<char> rest = value; !rest.IsEmpty;)
            {
                int space = rest.IndexOf(' ');
                ReadOnlySpan<char> flag = space < 0 ? rest : rest[..space];
                if (flag.SequenceEqual("lo"))
                {
                    figures = figures with { LockedFlag = true };
                }
                else if (flag.SequenceEqual("ht"))
                {
                    figures = figures with { IsHugetlb = true };
                }

                rest = space < 0 ? default : rest[(space + 1)..];
            }

            return figures;
        }

        return key switch
        {
            "Rss" => figures with { RssBytes = ParseKiB(value) },
            "Anonymous" => figures with { AnonymousBytes = ParseKiB(value) },
            "Locked" => figures with { LockedBytes = ParseKiB(value) },
            "Swap" or "SwapPss" => figures with { SwapBytes = Math.Max(figures.SwapBytes, ParseKiB(value)) },
            "Private_Hugetlb" or "Shared_Hugetlb" when ParseKiB(value) > 0 => figures with { IsHugetlb = true },
            _ => figures,
        };
    }

    // "1234 kB"
    private static long ParseKiB(ReadOnlySpan<char> value)
    {
        int space = value.IndexOf(' ');
        ReadOnlySpan<char> number = space < 0 ? value : value[..space];
        return long.TryParse(number, NumberStyles.None, CultureInfo.InvariantCulture, out long kib) ? kib * 1024 : 0;
    }
}
