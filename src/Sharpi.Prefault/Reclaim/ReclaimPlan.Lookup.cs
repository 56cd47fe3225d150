namespace Sharpi.Prefault;

internal sealed partial class ReclaimPlan
{
    /// <summary>
    /// The plan from a direct look-up of the regions' mappings, for regions wholly in read-only shared file views; null
    /// where any piece is something else, and the caller builds the smaps plan. Reading smaps walks the whole process.
    /// </summary>
    [SupportedOSPlatform("linux")]
    internal static ReclaimPlan? TryBuildFromLookup(MergedRegion[] regions, (nint Start, nint End)[] held, bool useQuery = true)
    {
        if (HasLocksOutsideLeases(held))
        {
            return null;
        }

        MappingSnapshot maps = MappingQuery.Read(regions, useQuery);
        if (maps.Entries.Length == 0)
        {
            return null;
        }

        var plan = new ReclaimPlan();
        var releasable = new List<MergedRegion>(regions.Length);
        foreach (MergedRegion r in regions)
        {
            foreach (MapPiece p in ProcMaps.Pieces(maps.Entries, r.Start, r.End))
            {
                if (p.IsGap || !IsReadOnlySharedFileView(maps.Entries[p.Index]) || maps.IsHugetlb[p.Index])
                {
                    return null;
                }

                plan.SubtractHeld(r with { Start = p.Start, End = p.End }, held, releasable);
            }
        }

        return plan.WithWholePagesOf(releasable); // as Build ends
    }

    private static bool IsReadOnlySharedFileView(ProcMapEntry m) => m.IsFileBacked && m.Shared && !m.Writable;

    /// <summary>True when the process has more memory locked than its leases hold, or when that cannot be read.</summary>
    private static bool HasLocksOutsideLeases((nint Start, nint End)[] held)
    {
        long leased = 0;
        foreach ((nint start, nint end) in held)
        {
            leased += end - start;
        }

        return LockedBytes() is not long locked || locked > leased;
    }

    // "VmLck:\t    1024 kB"
    private static long? LockedBytes()
    {
        if (KernelFile.TryReadText("/proc/self/status") is not string status)
        {
            return null;
        }

        int at = status.IndexOf("VmLck:", StringComparison.Ordinal);
        if (at < 0)
        {
            return null;
        }

        ReadOnlySpan<char> rest = status.AsSpan(at + "VmLck:".Length);
        int newline = rest.IndexOf('\n');
        ReadOnlySpan<char> value = (newline < 0 ? rest : rest[..newline]).Trim();
        int space = value.IndexOf(' ');
        return long.TryParse(space < 0 ? value : value[..space], System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out long kib)
            ? kib * 1024
            : null;
    }
}
