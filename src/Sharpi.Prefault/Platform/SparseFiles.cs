namespace Sharpi.Prefault;

/// <summary>Cuts sparse files' holes out of the regions before anything is read (Linux): a hole reads as zeros.</summary>
internal static class SparseFiles
{
    /// <summary>
    /// The regions less the holes of their files, pieces keeping their region's name and order; <paramref name="merged"/>
    /// itself where there is no hole.
    /// </summary>
    internal static MergedRegion[] WithoutHoles(MergedRegion[] merged, ProcMapEntry[] maps, out long holeBytes)
    {
        holeBytes = 0;
        if (!OperatingSystem.IsLinux() || maps.Length == 0)
        {
            return merged;
        }

        (nint Start, nint End)[]?[] holes = HolesOf(merged, maps);
        List<MergedRegion>? kept = null;
        for (int i = 0; i < merged.Length; i++)
        {
            MergedRegion r = merged[i];
            nint keptFrom = r.Start;
            foreach (MapPiece piece in ProcMaps.Pieces(maps, r.Start, r.End))
            {
                if (piece.IsGap || holes[piece.Index] is not { } mappingHoles)
                {
                    continue;
                }

                foreach ((nint holeStart, nint holeEnd) in mappingHoles)
                {
                    nint from = (nuint)holeStart > (nuint)piece.Start ? holeStart : piece.Start;
                    nint to = (nuint)holeEnd < (nuint)piece.End ? holeEnd : piece.End;
                    if ((nuint)from >= (nuint)to)
                    {
                        continue;
                    }

                    kept ??= [.. merged.AsSpan(0, i)];
                    if ((nuint)from > (nuint)keptFrom)
                    {
                        kept.Add(r with { Start = keptFrom, End = from });
                    }

                    holeBytes += to - from;
                    keptFrom = to;
                }
            }

            if (kept is null)
            {
                continue;
            }

            if ((nuint)keptFrom < (nuint)r.End)
            {
                kept.Add(r with { Start = keptFrom, End = r.End });
            }
        }

        return kept is null ? merged : [.. kept];
    }

    /// <summary>Per mapping: its holes as whole pages, in order (null: none known).</summary>
    private static (nint Start, nint End)[]?[] HolesOf(MergedRegion[] merged, ProcMapEntry[] maps)
    {
        var holes = new (nint Start, nint End)[]?[maps.Length];
        bool[] used = new bool[maps.Length];
        foreach (MergedRegion r in merged)
        {
            foreach (MapPiece piece in ProcMaps.Pieces(maps, r.Start, r.End))
            {
                if (!piece.IsGap)
                {
                    used[piece.Index] = true;
                }
            }
        }

        // Files without holes, or unaskable, are asked once (keyed as FileCacheProbe.FileKey).
        var solid = new HashSet<string>(StringComparer.Ordinal);
        List<(long Start, long End)>? fileHoles = null; // most files have none
        for (int i = 0; i < maps.Length; i++)
        {
            ProcMapEntry m = maps[i];
            if (!OperatingSystem.IsLinux() || !used[i] || m is not { IsFileBacked: true, IsDeleted: false })
            {
                continue;
            }

            string key = FileCacheProbe.FileKey(m.Path, m.Inode);
            if (!solid.Contains(key))
            {
                holes[i] = HolesOf(m, ref fileHoles, out bool fileIsSolid);
                if (fileIsSolid)
                {
                    solid.Add(key);
                }
            }
        }

        return holes;
    }

    /// <summary>The holes of <paramref name="m"/> as whole pages; null where none.</summary>
    [SupportedOSPlatform("linux")]
    private static (nint Start, nint End)[]? HolesOf(ProcMapEntry m, ref List<(long Start, long End)>? fileHoles, out bool fileIsSolid)
    {
        fileIsSolid = true;
        using SafeFileHandle? file = FileCacheProbe.OpenIfSameFile(m.Path, m.Inode, out long length);
        if (file is null)
        {
            return null;
        }

        if (!FileHoles.HasAny(file, length))
        {
            return null;
        }

        fileIsSolid = false;
        fileHoles ??= [];
        fileHoles.Clear();
        long mappedEnd = Math.Min(length, m.Offset + (m.End - m.Start));
        if (mappedEnd <= m.Offset || !FileHoles.TryFind(file, m.Offset, mappedEnd, fileHoles) || fileHoles.Count == 0)
        {
            return null;
        }

        var pages = new List<(nint Start, nint End)>(fileHoles.Count);
        foreach ((long start, long end) in fileHoles)
        {
            // Whole pages only: a page holding data is read; a hole to the end takes the last page along.
            nint from = Pages.Ceiling(m.Start + (nint)(start - m.Offset));
            nint to = end == length ? Pages.Ceiling(m.Start + (nint)(end - m.Offset)) : Pages.Floor(m.Start + (nint)(end - m.Offset));
            to = (nuint)to < (nuint)m.End ? to : m.End;
            if ((nuint)from < (nuint)to)
            {
                pages.Add((from, to));
            }
        }

        return pages.Count > 0 ? [.. pages] : null;
    }
}
