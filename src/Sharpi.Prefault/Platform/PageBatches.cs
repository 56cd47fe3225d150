namespace Sharpi.Prefault;

/// <summary>Walks [start, end) in batches of whole pages and totals the range's bytes on the pages the OS reports set.</summary>
internal struct PageBatches(nint start, nint end, int batchPages)
{
    private readonly nint _alignedStart = Pages.Floor(start);
    private readonly nint _alignedEnd = Pages.Ceiling(end);
    private nint _at = Pages.Floor(start);
    private nint _batchEnd = Pages.Floor(start);
    private long _setPages;
    private long _outsideBytes;

    internal readonly long Bytes => (_setPages * Pages.Size) - _outsideBytes;

    /// <summary>The next batch's first page and page count; false once the range is walked.</summary>
    internal bool Next(out nint at, out int pages)
    {
        _at = _batchEnd;
        at = _at;
        pages = (int)Math.Min((_alignedEnd - _at) / Pages.Size, batchPages);
        _batchEnd = _at + (pages * Pages.Size);
        return pages > 0;
    }

    /// <summary>Counts the batch just walked: its pages set, and whether its first and last are.</summary>
    internal void Add(long setPages, bool firstSet, bool lastSet)
    {
        _setPages += setPages;
        if (_at == _alignedStart && firstSet)
        {
            _outsideBytes += start - _alignedStart; // a range inside a page claims no more than its bytes
        }

        if (_batchEnd == _alignedEnd && lastSet)
        {
            _outsideBytes += _alignedEnd - end;
        }
    }
}
