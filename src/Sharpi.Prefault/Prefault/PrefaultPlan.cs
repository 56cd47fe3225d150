namespace Sharpi.Prefault;

/// <summary>A merged region of a plan and how many of its bytes were resident when the plan was made.</summary>
internal readonly record struct PlannedRegion(MergedRegion Region, long ResidentBytes);

/// <summary>
/// What one run will sweep: the merged regions that are mapped, in the caller's order, each with its resident bytes,
/// measured once (cachestat on the files where the kernel has it, else mincore). The RAM budget cuts the plan here.
/// </summary>
internal sealed class PrefaultPlan
{
    private PrefaultPlan(PlannedRegion[] regions, long bytesRequested)
    {
        Regions = regions;
        BytesRequested = bytesRequested;
        foreach (PlannedRegion p in regions)
        {
            BytesPlanned += p.Region.Length;
            BytesAlreadyResident += p.ResidentBytes;
        }
    }

    internal PlannedRegion[] Regions { get; }

    /// <summary>Bytes of all merged regions, the unmapped ones included: what the caller asked for.</summary>
    internal long BytesRequested { get; }

    /// <summary>Bytes of the planned regions.</summary>
    internal long BytesPlanned { get; }

    internal long BytesAlreadyResident { get; }

    /// <summary>Bytes that must still come in.</summary>
    internal long BytesNeeded => BytesPlanned - BytesAlreadyResident;

    /// <summary>
    /// Measures the residency of each merged region. A region that is not mapped becomes a failure and leaves the
    /// plan; where residency cannot be measured, every region is planned with nothing resident.
    /// </summary>
    internal static PrefaultPlan Measure(MergedRegion[] merged, ProcMapEntry[] maps, List<RegionFailure> failures)
    {
        long requested = RegionSet.TotalBytes(merged);
        var planned = new PlannedRegion[merged.Length];
        if (!Residency.IsSupported)
        {
            for (int i = 0; i < merged.Length; i++)
            {
                planned[i] = new PlannedRegion(merged[i], 0);
            }

            return new PrefaultPlan(planned, requested);
        }

        using FileCacheProbe probe = FileCacheProbe.Create(merged, maps);
        int kept = 0;
        foreach (MergedRegion r in merged)
        {
            if (probe.TryCountResident(r.Start, r.End, out long resident, out PlatformError error))
            {
                planned[kept++] = new PlannedRegion(r, resident);
            }
            else
            {
                failures.Add(new RegionFailure(r.DisplayName, r.Start, r.Length, error, $"not mapped: {error.Call} failed, {error.Describe()}; skipped"));
            }
        }

        return new PrefaultPlan(kept == planned.Length ? planned : planned[..kept], requested);
    }

    /// <summary>
    /// The regions in the caller's order until the not-yet-resident bytes reach <paramref name="budget"/>; the region
    /// that crosses it is cut. Cutting at the budget in bytes overshoots nothing: resident pages inside the cut only
    /// make it cheaper.
    /// </summary>
    internal PrefaultPlan WithinBudget(long budget)
    {
        var items = new BudgetItem[Regions.Length];
        for (int i = 0; i < items.Length; i++)
        {
            items[i] = new BudgetItem(Regions[i].Region.Length, Regions[i].ResidentBytes);
        }

        BudgetCut cut = RamFitGate.Cut(items, budget);
        PlannedRegion[] kept = Regions[..cut.ItemsKept];
        if (cut.CrossingLength > 0)
        {
            MergedRegion crossing = kept[^1].Region;
            kept[^1] = new PlannedRegion(crossing with { End = crossing.Start + (nint)cut.CrossingLength }, 0);
        }

        return new PrefaultPlan(kept, BytesRequested);
    }

    /// <summary>
    /// The planned regions' resident bytes now, counted as the plan was (0 where residency cannot be measured): after
    /// a sweep, what stayed resident, which under memory pressure can be less than what was swept.
    /// </summary>
    internal long MeasureResidentNow(ProcMapEntry[] maps)
    {
        if (!Residency.IsSupported)
        {
            return 0;
        }

        MergedRegion[] regions = ToRegions();
        using FileCacheProbe probe = FileCacheProbe.Create(regions, maps);
        long resident = 0;
        foreach (MergedRegion r in regions)
        {
            if (probe.TryCountResident(r.Start, r.End, out long bytes, out _))
            {
                resident += bytes;
            }
        }

        return resident;
    }

    /// <summary>The planned regions alone, for the mechanisms.</summary>
    internal MergedRegion[] ToRegions()
    {
        var regions = new MergedRegion[Regions.Length];
        for (int i = 0; i < regions.Length; i++)
        {
            regions[i] = Regions[i].Region;
        }

        return regions;
    }
}
