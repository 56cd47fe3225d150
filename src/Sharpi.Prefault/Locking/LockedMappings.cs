using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>Which pages of this process the kernel holds locked now, whoever locked them (mlock, mlockall).</summary>
internal static class LockedMappings
{
    /// <summary>
    /// The parts of [low, high) in locked mappings, sorted and disjoint; empty off Linux, when nothing is locked, or when
    /// /proc cannot be read.
    /// </summary>
    internal static (nint Start, nint End)[] Read(nint low, nint high)
    {
        if (!OperatingSystem.IsLinux() || LockedBytes() == 0)
        {
            return [];
        }

        SmapsSnapshot smaps = ProcMaps.ReadSelfSmaps();
        var locked = new List<(nint Start, nint End)>();
        for (int i = 0; i < smaps.Maps.Length; i++)
        {
            ProcMapEntry m = smaps.Maps[i];
            if (!smaps.Figures[i].LockedFlag || (nuint)m.End <= (nuint)low || (nuint)m.Start >= (nuint)high)
            {
                continue;
            }

            nint start = (nuint)m.Start > (nuint)low ? m.Start : low;
            nint end = (nuint)m.End < (nuint)high ? m.End : high;
            if (locked.Count > 0 && locked[^1].End == start)
            {
                locked[^1] = (locked[^1].Start, end);
            }
            else
            {
                locked.Add((start, end));
            }
        }

        return [.. locked];
    }

    /// <summary>VmLck of /proc/self/status in bytes; -1 (unknown, so smaps is read) when it cannot be read.</summary>
    private static long LockedBytes()
    {
        string? status = KernelFile.TryReadText("/proc/self/status");
        if (status is null)
        {
            return -1;
        }

        foreach (string line in status.Split('\n'))
        {
            if (line.StartsWith("VmLck:", StringComparison.Ordinal))
            {
                ReadOnlySpan<char> value = line.AsSpan("VmLck:".Length).Trim();
                int space = value.IndexOf(' ');
                return long.TryParse(space < 0 ? value : value[..space], NumberStyles.None, CultureInfo.InvariantCulture, out long kib) ? kib * 1024 : -1;
            }
        }

        return -1;
    }
}
