namespace Sharpi.Prefault;

/// <summary>A merged region of a plan, its bytes resident when planned, and those of unknown residency (swept).</summary>
internal readonly record struct PlannedRegion(MergedRegion Region, long ResidentBytes, long UnknownBytes = 0);

/// <summary>
/// What one run will sweep: the mapped merged regions in the caller's order, less the holes of sparse files (reading
/// them allocates), each with its resident bytes counted once.
/// </summary>
internal sealed class PrefaultPlan
{
    private PrefaultPlan(PlannedRegion[] regions, long bytesRequested, ProcMapEntry[] maps, long bytesInHoles)
    {
        Regions = regions;
        BytesRequested = bytesRequested;
        BytesInHoles = bytesInHoles;
        Maps = maps;
        Ranges = new MergedRegion[regions.Length];
        for (int i = 0; i < regions.Length; i++)
        {
            Ranges[i] = regions[i].Region;
            BytesPlanned += regions[i].Region.Length;
            BytesAlreadyResident += regions[i].ResidentBytes;
            BytesAlreadyResidentUnknown += regions[i].UnknownBytes;
        }
    }

    internal PlannedRegion[] Regions { get; }

    internal MergedRegion[] Ranges { get; }

    /// <summary>The mappings when planned; empty off Linux.</summary>
    internal ProcMapEntry[] Maps { get; }

    /// <summary>Bytes asked for, unmapped ones included.</summary>
    internal long BytesRequested { get; }

    /// <summary>Bytes of sparse-file holes, left out of the plan.</summary>
    internal long BytesInHoles { get; }

    internal long BytesPlanned { get; }

    internal long BytesAlreadyResident { get; }

    /// <summary>Bytes of unknown residency, counted as needed.</summary>
    internal long BytesAlreadyResidentUnknown { get; }

    internal long BytesNeeded => BytesPlanned - BytesAlreadyResident;

    /// <summary>One maps snapshot, holes cut, residency counted; unmapped regions become failures.</summary>
    internal static PrefaultPlan Measure(MergedRegion[] merged, List<RegionFailure> failures)
    {
        long requested = RegionSet.TotalBytes(merged);
        ProcMapEntry[] maps = ProcMaps.ReadFor(merged);
        merged = SparseFiles.WithoutHoles(merged, maps, out long holes);
        var planned = new PlannedRegion[merged.Length];
        if (!FileCacheProbe.IsSupported)
        {
            for (int i = 0; i < merged.Length; i++)
            {
                planned[i] = new PlannedRegion(merged[i], 0);
            }

            return new PrefaultPlan(planned, requested, maps, holes);
        }

        var counts = new RangeResidency[merged.Length];
        FileCacheProbe.CountResident(merged, maps, counts);
        int kept = 0;
        for (int i = 0; i < merged.Length; i++)
        {
            MergedRegion r = merged[i];
            if (counts[i].IsCounted)
            {
                planned[kept++] = new PlannedRegion(r, counts[i].ResidentBytes, counts[i].UnknownBytes);
            }
            else
            {
                PlatformError error = counts[i].Error;
                failures.Add(new RegionFailure(r.DisplayName, r.Start, r.Length, error, $"not mapped: {error.Call} failed, {error.Describe()}; skipped"));
            }
        }

        return new PrefaultPlan(kept == planned.Length ? planned : planned[..kept], requested, maps, holes);
    }

    /// <summary>The regions in order up to <paramref name="budget"/> still needed, the crossing one cut.</summary>
    internal PrefaultPlan WithinBudget(long budget)
    {
        var items = new BudgetItem[Regions.Length];
        for (int i = 0; i < items.Length; i++)
        {
            items[i] = new BudgetItem(Regions[i].Region.Length, Regions[i].ResidentBytes);
        }

        BudgetCut cut = RamGateDecision.Cut(items, budget);
        PlannedRegion[] kept = Regions[..cut.ItemsKept];
        if (cut.CrossingLength > 0)
        {
            MergedRegion crossing = kept[^1].Region;
            kept[^1] = new PlannedRegion(crossing with { End = crossing.Start + (nint)cut.CrossingLength }, 0);
        }

        return new PrefaultPlan(kept, BytesRequested, Maps, BytesInHoles);
    }

    /// <summary>The regions' resident bytes now, counted as the plan was, and those of unknown residency.</summary>
    internal long MeasureResidentNow(out long unknownBytes) => FileCacheProbe.CountResident(Ranges, Maps, out unknownBytes);
}
