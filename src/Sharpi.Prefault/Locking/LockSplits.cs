namespace Sharpi.Prefault;

/// <summary>
/// The room a lock call has under <c>vm.max_map_count</c>: mlock splits a mapping at each range end inside it, and past
/// the limit the runtime aborts the process.
/// </summary>
internal sealed class LockSplits
{
    /// <summary>The most a lock of one range can add: its mapping split at both ends.</summary>
    internal const int MostPerRange = 2;

    private readonly MappingRoom _room;
    private readonly ProcMapEntry[]? _maps;

    internal LockSplits(MappingRoom room, ProcMapEntry[]? maps)
    {
        _room = room;
        _maps = maps is { Length: > 0 } ? maps : null;
    }

    /// <summary>
    /// The room for locking <paramref name="groups"/>, charging each lock what it splits (one maps snapshot), or the
    /// worst case without reading anything where the room holds it.
    /// </summary>
    internal static LockSplits Room(PageGroup[] groups, MappingRoom room)
    {
        if (!room.IsBounded || groups.Length == 0 || (long)MostPerRange * groups.Length <= room.Free)
        {
            return new LockSplits(room, null);
        }

        nint low = groups[0].Range.Start;
        nint high = groups[0].Range.End;
        foreach (PageGroup g in groups)
        {
            low = (nuint)g.Range.Start < (nuint)low ? g.Range.Start : low;
            high = (nuint)g.Range.End > (nuint)high ? g.Range.End : high;
        }

        return new LockSplits(room, ProcMaps.ReadSelf(low, high));
    }

    /// <summary>Takes what locking <paramref name="range"/> may split off; false, taking nothing, where there is no room.</summary>
    internal bool TryTake(MergedRegion range) =>
        _room.TryTake(_maps is null ? MostPerRange : Cost(_maps, range.Start, range.End));

    /// <summary>Why a range was not locked, and what to do.</summary>
    internal string Describe() => _room.Describe("not locked: locking it could split its mapping");

    /// <summary>The most new mappings locking [start, end) makes: one per end inside a mapping rather than on its edge.</summary>
    internal static int Cost(ProcMapEntry[] maps, nint start, nint end)
    {
        int cost = 0;
        int first = AddressRanges.FirstEndingAfter(maps, start);
        if (first < maps.Length && (nuint)maps[first].Start < (nuint)start)
        {
            cost++;
        }

        int last = AddressRanges.FirstEndingAfter(maps, end - 1);
        if (last < maps.Length && (nuint)maps[last].Start < (nuint)end && (nuint)end < (nuint)maps[last].End)
        {
            cost++;
        }

        return cost;
    }
}
