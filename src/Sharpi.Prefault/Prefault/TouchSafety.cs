namespace Sharpi.Prefault;

/// <summary>Keeps the parts of each region a plain read can fault in without SIGBUS: mapped, readable, within the file.</summary>
internal static class TouchSafety
{
    /// <summary>Splits <paramref name="regions"/> into the safe pieces and the failures.</summary>
    internal static MergedRegion[] Filter(MergedRegion[] regions, ProcMapEntry[] maps, List<RegionFailure> failures)
    {
        if (maps.Length > 0)
        {
            return FilterWithMaps(regions, maps, failures, static path => FileStatus.TryRegularLength(path));
        }

        var safe = new List<MergedRegion>(regions.Length);
        foreach (MergedRegion r in regions)
        {
            if (PlatformMemory.IsReadable(r.Start, r.End, out PlatformError error, out string why))
            {
                safe.Add(r);
            }
            else
            {
                failures.Add(new RegionFailure(r.DisplayName, r.Start, r.Length, error, why));
            }
        }

        return [.. safe];
    }

    internal static MergedRegion[] FilterWithMaps(MergedRegion[] regions, ProcMapEntry[] maps, List<RegionFailure> failures, Func<string, long?> fileLength)
    {
        var safe = new List<MergedRegion>(regions.Length);
        foreach (MergedRegion r in regions)
        {
            foreach (MapPiece piece in ProcMaps.Pieces(maps, r.Start, r.End))
            {
                if (piece.IsGap)
                {
                    failures.Add(new RegionFailure(r.DisplayName, piece.Start, piece.End - piece.Start, PlatformError.None, "not mapped: the range has no mapping in /proc/self/maps"));
                    continue;
                }

                ProcMapEntry m = maps[piece.Index];
                if (!m.Readable)
                {
                    failures.Add(new RegionFailure(r.DisplayName, piece.Start, piece.End - piece.Start, PlatformError.None, "mapped without read permission"));
                    continue;
                }

                nint validEnd = piece.End;
                if (m.IsFileBacked && !m.IsDeleted && fileLength(m.Path) is long length)
                {
                    // Pages wholly past the end of the file raise SIGBUS; the page holding the last byte is zero-filled and safe.
                    long bytesInFile = Math.Max(0, length - m.Offset);
                    long safeBytes = Pages.Ceiling(bytesInFile);
                    nint fileEnd = (long)(m.End - m.Start) > safeBytes ? m.Start + (nint)safeBytes : m.End;
                    if ((nuint)fileEnd < (nuint)validEnd)
                    {
                        validEnd = (nuint)fileEnd > (nuint)piece.Start ? fileEnd : piece.Start;
                    }
                }

                if ((nuint)validEnd > (nuint)piece.Start)
                {
                    safe.Add(r with { Start = piece.Start, End = validEnd });
                }

                if ((nuint)validEnd < (nuint)piece.End)
                {
                    failures.Add(new RegionFailure(r.DisplayName, validEnd, piece.End - validEnd, PlatformError.None,
                        $"past the end of '{m.Path}' (the file is shorter than the mapping: truncated?)"));
                }
            }
        }

        return [.. safe];
    }
}
