namespace Sharpi.Prefault;

/// <summary>Decides, before a single page is released, what a reclaim may drop.</summary>
internal sealed partial class ReclaimPlan
{
    private ReclaimPlan()
    {
    }

    /// <summary>Page-aligned ranges to release, sorted by address.</summary>
    internal MergedRegion[] Release { get; private set; } = [];

    /// <summary>Parts left resident, with the reason.</summary>
    internal List<RegionFailure> Skipped { get; } = [];

    /// <summary>Why the call must be refused; empty when it may go ahead.</summary>
    internal List<string> Refusals { get; } = [];

    /// <summary>The plan from /proc/self/smaps; <paramref name="held"/> are the leases' page ranges, sorted and disjoint.</summary>
    internal static ReclaimPlan Build(MergedRegion[] regions, SmapsSnapshot smaps, (nint Start, nint End)[] held)
    {
        var plan = new ReclaimPlan();
        var releasable = new List<MergedRegion>(regions.Length);
        foreach (MergedRegion r in regions)
        {
            foreach (MapPiece p in ProcMaps.Pieces(smaps.Maps, r.Start, r.End))
            {
                if (p.IsGap)
                {
                    plan.Refusals.Add($"{Describe(r, p)} is not mapped (no entry in /proc/self/smaps)");
                }
                else if (RefusalReason(smaps.Maps[p.Index], smaps.Figures[p.Index]) is string refusal)
                {
                    plan.Refusals.Add($"{Describe(r, p)} {refusal}");
                }
                else if (smaps.Figures[p.Index].IsLocked)
                {
                    plan.Skipped.Add(new RegionFailure(r.DisplayName, p.Start, p.End - p.Start, PlatformError.None,
                        "locked in memory (smaps Locked/VmFlags lo): munlock it, or dispose its LockLease, first"));
                }
                else
                {
                    plan.SubtractHeld(r with { Start = p.Start, End = p.End }, held, releasable);
                }
            }
        }

        return plan.WithWholePagesOf(releasable);
    }

    /// <summary>Rounds <paramref name="releasable"/> inward to whole pages; a piece with none is skipped, saying why.</summary>
    private ReclaimPlan WithWholePagesOf(List<MergedRegion> releasable)
    {
        var tooSmall = new List<MergedRegion>();
        Release = PageRanges.Inward([.. releasable], tooSmall);
        foreach (MergedRegion r in tooSmall)
        {
            Skipped.Add(new RegionFailure(r.DisplayName, r.Start, r.Length, PlatformError.None,
                "holds no whole page once rounded inward; its pages also hold bytes outside the regions, so they stay"));
        }

        return this;
    }

    /// <summary>Why the pages of mapping <paramref name="m"/> must not be dropped, or null when they may.</summary>
    internal static string? RefusalReason(ProcMapEntry m, SmapsFigures f)
    {
        if (!m.IsFileBacked)
        {
            string what = m.Path.Length > 0 ? m.Path : "no file";
            return $"is anonymous memory ({what}), not a file mapping: MADV_DONTNEED would replace its bytes with zeros. "
                + "Only read-only views of files can be reclaimed; free other memory through whatever allocated it.";
        }

        if (f.IsHugetlb)
        {
            return $"is hugetlb memory ('{m.Path}'): its pages are not the page cache of a file, and a private one's written "
                + "bytes exist nowhere else. Only read-only views of files can be reclaimed.";
        }

        if (m.Writable && m.Shared)
        {
            return $"is in a writable shared view of '{m.Path}': only read-only views are reclaimed, as a writable view "
                + "may still be written by the program. Map the weights with MemoryMappedFileAccess.Read to reclaim them.";
        }

        // Refused even when unwritten: a write can land between this check and the madvise (docs/why/reclaim.md).
        if (m.Writable && !m.Shared)
        {
            string written = f.PrivateDataBytes > 0
                ? $"; it was written to ({Sizes.Format(f.AnonymousBytes)} of private copies resident, smaps Anonymous, and {Sizes.Format(f.SwapBytes)} swapped out, smaps Swap)"
                : string.Empty;
            return $"is in a writable copy-on-write view of '{m.Path}'{written}: MADV_DONTNEED would throw away any byte written to it, "
                + "even one written while the call runs, and read the file's back. Only read-only views are reclaimed: map the weights "
                + "with MemoryMappedFileAccess.Read, or keep this view resident.";
        }

        // A read-only private view can still hold private copies written before an mprotect made it read-only.
        if (!m.Shared && f.PrivateDataBytes > 0)
        {
            return $"is in a copy-on-write view of '{m.Path}' that was written to ({Sizes.Format(f.AnonymousBytes)} of private "
                + $"copies resident, smaps Anonymous, and {Sizes.Format(f.SwapBytes)} swapped out, smaps Swap): MADV_DONTNEED would "
                + "throw the written bytes away and read the file's back. Reclaim only views that were never written, or keep this one resident.";
        }

        return null;
    }

    // Adds the parts of `piece` outside every held range to `releasable`, and the rest to the skipped list.
    private void SubtractHeld(MergedRegion piece, (nint Start, nint End)[] held, List<MergedRegion> releasable)
    {
        // Binary search to the overlapping held ranges: walking all of them per piece is quadratic.
        nint at = piece.Start;
        for (int k = AddressRanges.FirstEndingAfter(held, piece.Start); k < held.Length && (nuint)held[k].Start < (nuint)piece.End; k++)
        {
            (nint start, nint end) = held[k];
            if ((nuint)start > (nuint)at)
            {
                releasable.Add(piece with { Start = at, End = start });
            }

            nint lockedEnd = (nuint)end < (nuint)piece.End ? end : piece.End;
            nint lockedStart = (nuint)start > (nuint)at ? start : at;
            Skipped.Add(new RegionFailure(piece.DisplayName, lockedStart, lockedEnd - lockedStart, PlatformError.None,
                "locked by a live LockLease: dispose the lease first"));
            at = lockedEnd;
        }

        if ((nuint)at < (nuint)piece.End)
        {
            releasable.Add(piece with { Start = at });
        }
    }

    private static string Describe(MergedRegion r, MapPiece p) => $"Region {r.DisplayName} at 0x{p.Start:X}-0x{p.End:X}";
}
