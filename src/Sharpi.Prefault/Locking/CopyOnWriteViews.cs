namespace Sharpi.Prefault;

/// <summary>Refuses to lock page groups in a writable private file mapping: mlock would copy every page privately.</summary>
internal static class CopyOnWriteViews
{
    internal const string Refusal = "in a writable copy-on-write view (MAP_PRIVATE, PROT_WRITE): mlock would copy every page privately, " +
        "doubling its memory; map the weights read-only (MemoryMappedFileAccess.Read) to lock them";

    /// <summary>The groups outside such mappings, adding a failure per member of each refused group (all groups off Linux).</summary>
    internal static PageGroup[] Exclude(PageGroup[] groups, MergedRegion[] pieces, List<RegionFailure> failures)
    {
        if (!OperatingSystem.IsLinux() || groups.Length == 0)
        {
            return groups;
        }

        var ranges = new MergedRegion[groups.Length];
        for (int i = 0; i < groups.Length; i++)
        {
            ranges[i] = groups[i].Range;
        }

        ProcMapEntry[] maps = ProcMaps.ReadFor(ranges);
        List<PageGroup>? kept = null;
        for (int i = 0; i < groups.Length; i++)
        {
            PageGroup g = groups[i];
            if (!IsInCopyOnWriteView(g.Range, maps))
            {
                kept?.Add(g);
                continue;
            }

            kept ??= [.. groups.AsSpan(0, i)];
            foreach (MergedRegion piece in pieces.AsSpan(g.FirstPiece, g.PieceCount))
            {
                failures.Add(new RegionFailure(piece.DisplayName, piece.Start, piece.Length, PlatformError.None, Refusal));
            }
        }

        return kept is null ? groups : [.. kept];
    }

    private static bool IsInCopyOnWriteView(MergedRegion range, ProcMapEntry[] maps)
    {
        foreach (MapPiece p in ProcMaps.Pieces(maps, range.Start, range.End))
        {
            if (!p.IsGap && maps[p.Index] is { Writable: true, Shared: false, IsFileBacked: true })
            {
                return true;
            }
        }

        return false;
    }
}
