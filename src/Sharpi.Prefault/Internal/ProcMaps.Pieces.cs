namespace Sharpi.Prefault;

/// <summary>Part of a range: inside mapping <see cref="Index"/> of the entries walked, or, with Index -1, a gap no mapping covers.</summary>
internal readonly record struct MapPiece(nint Start, nint End, int Index)
{
    internal bool IsGap => Index < 0;
}

internal static partial class ProcMaps
{
    /// <summary>Splits [start, end) at the mappings' edges (entries sorted by address), gaps included, in address order.</summary>
    internal static IEnumerable<MapPiece> Pieces(ProcMapEntry[] entries, nint start, nint end)
    {
        nint at = start;
        int i = AddressRanges.FirstEndingAfter<ProcMapEntry>(entries, at);
        while ((nuint)at < (nuint)end)
        {
            if (i >= entries.Length || (nuint)entries[i].Start > (nuint)at)
            {
                nint gapEnd = i < entries.Length && (nuint)entries[i].Start < (nuint)end ? entries[i].Start : end;
                yield return new MapPiece(at, gapEnd, -1);
                at = gapEnd;
                continue;
            }

            nint pieceEnd = (nuint)entries[i].End < (nuint)end ? entries[i].End : end;
            yield return new MapPiece(at, pieceEnd, i);
            at = pieceEnd;
            i++;
        }
    }
}
