namespace Sharpi.Prefault;

/// <summary>Part of a range inside mapping <see cref="Index"/>, or a gap (Index -1).</summary>
internal readonly record struct MapPiece(nint Start, nint End, int Index)
{
    internal bool IsGap => Index < 0;
}

internal static partial class ProcMaps
{
    /// <summary>Splits [start, end) at the sorted mappings' edges, gaps included.</summary>
    internal static MapPieces Pieces(ProcMapEntry[] entries, nint start, nint end) => new(entries, start, end);
}

internal struct MapPieces(ProcMapEntry[] entries, nint start, nint end)
{
    private nint _at = start;
    private int _i = -1;

    public MapPiece Current { get; private set; }

    public readonly MapPieces GetEnumerator() => this;

    public bool MoveNext()
    {
        if ((nuint)_at >= (nuint)end)
        {
            return false;
        }

        if (_i < 0)
        {
            _i = AddressRanges.FirstEndingAfter<ProcMapEntry>(entries, _at);
        }

        if (_i >= entries.Length || (nuint)entries[_i].Start > (nuint)_at)
        {
            nint gapEnd = _i < entries.Length && (nuint)entries[_i].Start < (nuint)end ? entries[_i].Start : end;
            Current = new MapPiece(_at, gapEnd, -1);
            _at = gapEnd;
            return true;
        }

        nint pieceEnd = (nuint)entries[_i].End < (nuint)end ? entries[_i].End : end;
        Current = new MapPiece(_at, pieceEnd, _i);
        _at = pieceEnd;
        _i++;
        return true;
    }
}
