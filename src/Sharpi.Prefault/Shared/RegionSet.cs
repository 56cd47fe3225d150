namespace Sharpi.Prefault;

/// <summary>
/// Merges the caller's regions into disjoint ranges, empty ones dropped, kept in the caller's order: engines pass hot
/// regions first.
/// </summary>
internal static class RegionSet
{
    /// <summary>Throws on a negative length or a range past the address space.</summary>
    internal static void Validate(ReadOnlySpan<PrefaultRegion> regions, string paramName)
    {
        for (int i = 0; i < regions.Length; i++)
        {
            PrefaultRegion r = regions[i];
            if (r.Length < 0)
            {
                ThrowHelper.ThrowRegionLength(i, r.Length, paramName);
            }

            if (r.Length > 0 && (ulong)r.Address + (ulong)r.Length < (ulong)r.Address)
            {
                ThrowHelper.ThrowRegionOverflow(i, r.Address, r.Length, paramName);
            }
        }
    }

    /// <summary>Merges validated regions, in the caller's order.</summary>
    internal static MergedRegion[] Merge(ReadOnlySpan<PrefaultRegion> regions) => Merge(regions, memberOf: null);

    /// <summary>Also writes each region's merged index into <paramref name="memberOf"/> (-1: empty).</summary>
    internal static MergedRegion[] Merge(ReadOnlySpan<PrefaultRegion> regions, int[]? memberOf)
    {
        memberOf?.AsSpan().Fill(-1);
        int count = 0;
        for (int i = 0; i < regions.Length; i++)
        {
            if (!regions[i].IsEmpty)
            {
                count++;
            }
        }

        if (count == 0)
        {
            return [];
        }

        var byAddress = new MergedRegion[count];
        int n = 0;
        for (int i = 0; i < regions.Length; i++)
        {
            PrefaultRegion r = regions[i];
            if (!r.IsEmpty)
            {
                byAddress[n++] = new MergedRegion(r.Address, r.Address + (nint)r.Length, r.Name, i);
            }
        }

        SortUnlessSorted(byAddress, default(ByAddress));

        int merged = 0;
        int groupStart = 0; // the range built is byAddress[groupStart..i)
        MergedRegion current = byAddress[0];
        for (int i = 1; i < byAddress.Length; i++)
        {
            MergedRegion next = byAddress[i];
            if ((nuint)next.Start < (nuint)current.End)
            {
                // Overlap: one range, named and placed as its first-listed member.
                nint end = (nuint)next.End > (nuint)current.End ? next.End : current.End;
                current = next.Order < current.Order
                    ? current with { End = end, Name = next.Name, Order = next.Order }
                    : current with { End = end };
            }
            else
            {
                RecordMembers(byAddress, groupStart, i, current.Order, memberOf);
                byAddress[merged++] = current;
                current = next;
                groupStart = i;
            }
        }

        RecordMembers(byAddress, groupStart, byAddress.Length, current.Order, memberOf);
        byAddress[merged++] = current;
        if (merged < byAddress.Length)
        {
            // Array.Copy: ReadyToRun cannot hold Array.Resize over this struct.
            var shorter = new MergedRegion[merged];
            Array.Copy(byAddress, shorter, merged);
            byAddress = shorter;
        }

        SortUnlessSorted(byAddress, default(ByOrder));
        return byAddress;
    }

    /// <summary>Sorts with an inlined struct comparer, unless already in order.</summary>
    private static void SortUnlessSorted<TComparer>(MergedRegion[] regions, TComparer comparer)
        where TComparer : struct, IComparer<MergedRegion>
    {
        for (int i = 1; i < regions.Length; i++)
        {
            if (comparer.Compare(regions[i - 1], regions[i]) > 0)
            {
                regions.AsSpan().Sort(comparer);
                return;
            }
        }
    }

    private readonly struct ByAddress : IComparer<MergedRegion>
    {
        public int Compare(MergedRegion a, MergedRegion b) =>
            a.Start != b.Start ? ((nuint)a.Start).CompareTo((nuint)b.Start) : a.Order.CompareTo(b.Order);
    }

    private readonly struct ByOrder : IComparer<MergedRegion>
    {
        public int Compare(MergedRegion a, MergedRegion b) => a.Order.CompareTo(b.Order);
    }

    // Members keep the caller's index as Order until the group closes (written at or before groupStart).
    private static void RecordMembers(MergedRegion[] byAddress, int from, int to, int order, int[]? memberOf)
    {
        if (memberOf is null)
        {
            return;
        }

        for (int k = from; k < to; k++)
        {
            memberOf[byAddress[k].Order] = order;
        }
    }

    /// <summary>Unsigned; 0 for none.</summary>
    internal static nint Lowest(MergedRegion[] regions)
    {
        nuint low = nuint.MaxValue;
        foreach (MergedRegion r in regions)
        {
            low = Math.Min(low, (nuint)r.Start);
        }

        return regions.Length == 0 ? 0 : (nint)low;
    }

    /// <summary>Unsigned; 0 for none.</summary>
    internal static nint Highest(MergedRegion[] regions)
    {
        nuint high = 0;
        foreach (MergedRegion r in regions)
        {
            high = Math.Max(high, (nuint)r.End);
        }

        return (nint)high;
    }

    internal static long TotalBytes(MergedRegion[] regions)
    {
        long total = 0;
        foreach (MergedRegion r in regions)
        {
            total += r.Length;
        }

        return total;
    }
}
