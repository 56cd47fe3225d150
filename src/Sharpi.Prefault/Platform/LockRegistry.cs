namespace Sharpi.Prefault;

/// <summary>The page ranges this process locks through <see cref="MmapLock"/>, counted: one munlock undoes any number of mlocks.</summary>
internal sealed class LockRegistry
{
    private readonly object _gate = new();
    private List<HeldRange> _held = [];

    internal static LockRegistry Process { get; } = new();

    /// <summary>Entries and ranges walked by all updates (tests prove updates linear).</summary>
    internal long EntriesWalked { get; private set; }

    internal void Acquire(nint start, nint end) => Acquire([(start, end)]);

    /// <summary>Counts each of the disjoint <paramref name="ranges"/> as held once more.</summary>
    internal void Acquire(ReadOnlySpan<(nint Start, nint End)> ranges)
    {
        (nint Start, nint End)[] sorted = Sorted(ranges);
        lock (_gate)
        {
            Apply(sorted, +1, null);
        }
    }

    /// <summary>Counts as held once more the parts of <paramref name="ranges"/> no one else has locked, and returns them sorted.</summary>
    internal (nint Start, nint End)[] AcquireUnlocked(ReadOnlySpan<(nint Start, nint End)> ranges, Func<nint, nint, (nint Start, nint End)[]> lockedNow)
    {
        (nint Start, nint End)[] sorted = Sorted(ranges);
        if (sorted.Length == 0)
        {
            return sorted;
        }

        lock (_gate)
        {
            nint high = sorted[0].End;
            foreach ((nint _, nint end) in sorted)
            {
                high = (nuint)end > (nuint)high ? end : high;
            }

            (nint Start, nint End)[] locked = lockedNow(sorted[0].Start, high);
            (nint Start, nint End)[] claimed = sorted;
            if (locked.Length > 0)
            {
                var held = new (nint Start, nint End)[_held.Count];
                for (int i = 0; i < held.Length; i++)
                {
                    held[i] = (_held[i].Start, _held[i].End);
                }

                claimed = Subtract(sorted, Subtract(locked, held));
            }

            Apply(claimed, +1, null);
            return claimed;
        }
    }

    /// <summary><paramref name="ranges"/> less <paramref name="cut"/>; inputs and result sorted and disjoint.</summary>
    internal static (nint Start, nint End)[] Subtract((nint Start, nint End)[] ranges, (nint Start, nint End)[] cut)
    {
        if (cut.Length == 0)
        {
            return ranges;
        }

        var rest = new List<(nint Start, nint End)>(ranges.Length);
        int k = 0;
        foreach ((nint start, nint end) in ranges)
        {
            while (k < cut.Length && (nuint)cut[k].End <= (nuint)start)
            {
                k++;
            }

            nint at = start;
            for (int j = k; j < cut.Length && (nuint)cut[j].Start < (nuint)end; j++)
            {
                if ((nuint)cut[j].Start > (nuint)at)
                {
                    rest.Add((at, cut[j].Start));
                }

                at = (nuint)cut[j].End > (nuint)at ? cut[j].End : at;
            }

            if ((nuint)at < (nuint)end)
            {
                rest.Add((at, end));
            }
        }

        return [.. rest];
    }

    /// <inheritdoc cref="Release(ReadOnlySpan{ValueTuple{nint, nint}}, Action{nint, nint})"/>
    internal void Release(nint start, nint end, Action<nint, nint> unlock) => Release([(start, end)], unlock);

    /// <summary>
    /// Counts each range as held once less and unlocks the parts no one holds, inside the registry's lock so that no lease
    /// relocks them in between.
    /// </summary>
    internal void Release(ReadOnlySpan<(nint Start, nint End)> ranges, Action<nint, nint> unlock)
    {
        (nint Start, nint End)[] sorted = Sorted(ranges);
        lock (_gate)
        {
            var free = new List<HeldRange>();
            Apply(sorted, -1, free);
            for (int i = 0; i < free.Count; i++)
            {
                nint freeEnd = free[i].End;
                int j = i;
                while (j + 1 < free.Count && free[j + 1].Start == freeEnd)
                {
                    freeEnd = free[++j].End;
                }

                unlock(free[i].Start, freeEnd);
                i = j;
            }
        }
    }

    /// <summary>The held ranges, sorted, disjoint, touching ones joined.</summary>
    internal (nint Start, nint End)[] Held()
    {
        lock (_gate)
        {
            var held = new List<(nint Start, nint End)>(_held.Count);
            foreach (HeldRange h in _held)
            {
                if (held.Count > 0 && held[^1].End == h.Start)
                {
                    held[^1] = (held[^1].Start, h.End);
                }
                else
                {
                    held.Add((h.Start, h.End));
                }
            }

            return [.. held];
        }
    }

    private static (nint Start, nint End)[] Sorted(ReadOnlySpan<(nint Start, nint End)> ranges)
    {
        (nint Start, nint End)[] sorted = ranges.ToArray();
        Array.Sort(sorted, static (a, b) => ((nuint)a.Start).CompareTo((nuint)b.Start));
        return sorted;
    }

    // Rebuilds the held list with every range's count changed by delta in one merge pass; entries reaching zero go to `free`.
    private void Apply((nint Start, nint End)[] ranges, int delta, List<HeldRange>? free)
    {
        EntriesWalked += _held.Count + ranges.Length;
        var next = new List<HeldRange>(_held.Count + (2 * ranges.Length) + 1);
        int j = 0;
        nint at = ranges.Length > 0 ? ranges[0].Start : 0; // start of ranges[j]'s unapplied part
        foreach (HeldRange h in _held)
        {
            // Ranges wholly before this entry: parts nobody holds.
            while (j < ranges.Length && (nuint)ranges[j].End <= (nuint)h.Start)
            {
                AddUnheld(next, at, ranges[j].End, delta);
                NextRange(ranges, ref j, ref at);
            }

            nint rest = h.Start; // start of h's uncopied part
            while (j < ranges.Length && (nuint)ranges[j].Start < (nuint)h.End)
            {
                if ((nuint)at < (nuint)rest)
                {
                    AddUnheld(next, at, rest, delta);
                    at = rest;
                }

                if ((nuint)rest < (nuint)at)
                {
                    next.Add(h with { Start = rest, End = at });
                    rest = at;
                }

                nint overlapEnd = (nuint)ranges[j].End < (nuint)h.End ? ranges[j].End : h.End;
                var overlap = new HeldRange(rest, overlapEnd, h.Count + delta);
                if (overlap.Count > 0)
                {
                    next.Add(overlap);
                }
                else
                {
                    free?.Add(overlap);
                }

                rest = overlapEnd;
                at = overlapEnd;
                if (ranges[j].End != overlapEnd)
                {
                    break; // the range runs past this entry
                }

                NextRange(ranges, ref j, ref at);
            }

            if ((nuint)rest < (nuint)h.End)
            {
                next.Add(h with { Start = rest });
            }
        }

        for (; j < ranges.Length; NextRange(ranges, ref j, ref at))
        {
            AddUnheld(next, at, ranges[j].End, delta);
        }

        _held = next;
    }

    private static void NextRange((nint Start, nint End)[] ranges, ref int j, ref nint at)
    {
        j++;
        at = j < ranges.Length ? ranges[j].Start : 0;
    }

    private static void AddUnheld(List<HeldRange> next, nint start, nint end, int delta)
    {
        if (delta > 0 && (nuint)start < (nuint)end)
        {
            next.Add(new HeldRange(start, end, delta));
        }
    }

    private readonly record struct HeldRange(nint Start, nint End, int Count);
}
