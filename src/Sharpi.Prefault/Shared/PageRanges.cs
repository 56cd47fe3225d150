namespace Sharpi.Prefault;

/// <summary>A page range to lock, named after its first-listed member, of one piece per member from <see cref="FirstPiece"/>.</summary>
internal readonly record struct PageGroup(MergedRegion Range, int FirstPiece, int PieceCount);

/// <summary>Rounds merged regions to pages: outward to lock, inward to release.</summary>
internal static class PageRanges
{
    /// <summary>Regions grown to whole pages, overlaps grouped, in the caller's order (a limit spares those listed first).</summary>
    internal static PageGroup[] Outward(MergedRegion[] regions, out MergedRegion[] pieces)
    {
        MergedRegion[] byAddress = [.. regions];
        Array.Sort(byAddress, static (a, b) => ((nuint)a.Start).CompareTo((nuint)b.Start));
        var groups = new List<PageGroup>(byAddress.Length);
        var split = new List<MergedRegion>(byAddress.Length);
        foreach (MergedRegion r in byAddress)
        {
            nint start = Pages.Floor(r.Start);
            nint end = Pages.Ceiling(r.End);
            if (groups.Count == 0 || (nuint)start >= (nuint)groups[^1].Range.End)
            {
                groups.Add(new PageGroup(r with { Start = start, End = end }, split.Count, 1));
                split.Add(r with { Start = start, End = end });
                continue;
            }

            PageGroup group = groups[^1];
            if ((nuint)end <= (nuint)group.Range.End)
            {
                split[^1] = split[^1] with { Name = $"{split[^1].DisplayName}, {r.DisplayName}" };
            }
            else
            {
                split.Add(r with { Start = group.Range.End, End = end });
                group = group with { Range = group.Range with { End = end }, PieceCount = group.PieceCount + 1 };
            }

            groups[^1] = r.Order < group.Range.Order ? group with { Range = group.Range with { Name = r.Name, Order = r.Order } } : group;
        }

        pieces = [.. split];
        PageGroup[] inOrder = [.. groups];
        Array.Sort(inOrder, static (a, b) => a.Range.Order.CompareTo(b.Range.Order));
        return inOrder;
    }

    /// <summary>
    /// Touching ranges joined, then shrunk to their whole pages (a page shared with other bytes stays); ranges without one
    /// go to <paramref name="tooSmall"/>.
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

    // Sorts by address, joining touching ranges.
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
