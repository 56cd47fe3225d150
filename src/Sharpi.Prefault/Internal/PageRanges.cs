namespace Sharpi.Prefault;

/// <summary>Rounds merged regions to whole pages: outward to lock them, inward to release them.</summary>
internal static class PageRanges
{
    /// <summary>
    /// Each region grown to the pages it touches, and ranges that then overlap (neighbour tensors sharing an edge
    /// page) merged; kept in the caller's order, so a limit that runs out mid-way spares the regions listed first.
    /// </summary>
    internal static MergedRegion[] Outward(MergedRegion[] regions)
    {
        var grown = new PrefaultRegion[regions.Length];
        for (int i = 0; i < regions.Length; i++)
        {
            MergedRegion r = regions[i];
            nint start = Pages.Floor(r.Start);
            nint end = Pages.Ceiling(r.End);
            grown[i] = new PrefaultRegion(start, end - start, r.Name);
        }

        return RegionSet.Merge(grown);
    }

    /// <summary>
    /// Ranges that touch joined first (both sides are released, so the page they share may go), then each shrunk
    /// to the whole pages inside it: a page shared with bytes outside the regions stays. Ranges with no whole page
    /// inside come back in <paramref name="tooSmall"/>.
    /// </summary>
    internal static MergedRegion[] Inward(MergedRegion[] regions, List<MergedRegion> tooSmall)
    {
        MergedRegion[] joined = JoinTouching([.. regions]);
        var inner = new List<MergedRegion>(joined.Length);
        foreach (MergedRegion r in joined)
        {
            nint start = Pages.Ceiling(r.Start);
            nint end = Pages.Floor(r.End);
            if ((nuint)start < (nuint)end)
            {
                inner.Add(r with { Start = start, End = end });
            }
            else
            {
                tooSmall.Add(r);
            }
        }

        return [.. inner];
    }

    // Sorts in place by address and joins ranges that touch (they never overlap: they come from merged regions).
    private static MergedRegion[] JoinTouching(MergedRegion[] ranges)
    {
        if (ranges.Length == 0)
        {
            return ranges;
        }

        Array.Sort(ranges, static (a, b) => ((nuint)a.Start).CompareTo((nuint)b.Start));
        int count = 0;
        MergedRegion current = ranges[0];
        for (int i = 1; i < ranges.Length; i++)
        {
            MergedRegion next = ranges[i];
            if ((nuint)next.Start <= (nuint)current.End)
            {
                if ((nuint)next.End > (nuint)current.End)
                {
                    current = current with { End = next.End };
                }
            }
            else
            {
                ranges[count++] = current;
                current = next;
            }
        }

        ranges[count++] = current;
        Array.Resize(ref ranges, count);
        return ranges;
    }
}
