namespace Sharpi.Prefault;

/// <summary>
/// Which page ranges this process holds locked through <see cref="MmapLock"/>, with a count per range.
/// mlock and VirtualLock do not count: one munlock undoes any number of locks of a page. Two leases over the same
/// page (neighbour tensors, or the same file locked twice) therefore share it, and the page is unlocked only when
/// the last lease lets go. Reclaim reads the held ranges to skip them.
/// </summary>
internal sealed class LockRegistry
{
    private readonly object _gate = new();
    private List<HeldRange> _held = [];

    /// <summary>The registry of this process: every lease registers here.</summary>
    internal static LockRegistry Process { get; } = new();

    /// <summary>Counts [start, end) as held once more.</summary>
    internal void Acquire(nint start, nint end)
    {
        lock (_gate)
        {
            Apply(start, end, +1, null);
        }
    }

    /// <summary>
    /// Counts [start, end) as held once less and calls <paramref name="unlock"/> for each part no longer held by anyone,
    /// inside the registry's lock so that no lease can lock those pages again between the count and the unlock.
    /// </summary>
    internal void Release(nint start, nint end, Action<nint, nint> unlock)
    {
        lock (_gate)
        {
            var free = new List<HeldRange>();
            Apply(start, end, -1, free);
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

    /// <summary>The held ranges, sorted by address, disjoint, touching ones joined.</summary>
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

    // Rebuilds the sorted, disjoint list with the count of [start, end) changed by delta. Ranges that reach zero
    // go to `free`; a release of a range nobody holds changes nothing.
    private void Apply(nint start, nint end, int delta, List<HeldRange>? free)
    {
        var next = new List<HeldRange>(_held.Count + 3);
        nint at = start;
        foreach (HeldRange h in _held)
        {
            if ((nuint)h.End <= (nuint)start)
            {
                next.Add(h);
                continue;
            }

            if ((nuint)h.Start >= (nuint)end)
            {
                AddGap(next, ref at, end, delta);
                next.Add(h);
                continue;
            }

            if ((nuint)h.Start < (nuint)start)
            {
                next.Add(h with { End = start });
            }

            nint overlapStart = (nuint)h.Start > (nuint)start ? h.Start : start;
            nint overlapEnd = (nuint)h.End < (nuint)end ? h.End : end;
            AddGap(next, ref at, overlapStart, delta);
            var overlap = new HeldRange(overlapStart, overlapEnd, h.Count + delta);
            if (overlap.Count > 0)
            {
                next.Add(overlap);
            }
            else
            {
                free?.Add(overlap);
            }

            if ((nuint)h.End > (nuint)end)
            {
                next.Add(h with { Start = end });
            }

            at = overlapEnd;
        }

        AddGap(next, ref at, end, delta);
        _held = next;
    }

    private static void AddGap(List<HeldRange> next, ref nint at, nint until, int delta)
    {
        if ((nuint)at < (nuint)until && delta > 0)
        {
            next.Add(new HeldRange(at, until, delta));
        }

        if ((nuint)at < (nuint)until)
        {
            at = until;
        }
    }

    private readonly record struct HeldRange(nint Start, nint End, int Count);
}
