namespace Sharpi.Prefault;

/// <summary>
/// A merged region of a plan, how many of its bytes were resident when the plan was made, and how many the kernel
/// would not say of (<see cref="ResidencyInfo.UnknownBytes"/>: planned as not resident, so the sweep covers them).
/// </summary>
internal readonly record struct PlannedRegion(MergedRegion Region, long ResidentBytes, long UnknownBytes = 0);

/// <summary>
/// What one run will sweep: the merged regions that are mapped, in the caller's order, less the holes of sparse files
/// (<see cref="SparseFiles"/>: nothing to read there, and reading them allocates), each with its resident bytes,
/// counted once
/// (<see cref="FileCacheProbe.CountResident(MergedRegion[], ProcMapEntry[], out long, RangeResidency[])"/>: cachestat
/// on the files where the kernel has it, else mincore).
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

    /// <summary>The planned regions alone, in the same order, for the mechanisms.</summary>
    internal MergedRegion[] Ranges { get; }

    /// <summary>One snapshot of the mappings under the regions (Linux; empty elsewhere), taken when the plan was made.</summary>
    internal ProcMapEntry[] Maps { get; }

    /// <summary>Bytes of all merged regions, the unmapped ones included: what the caller asked for.</summary>
    internal long BytesRequested { get; }

    /// <summary>Bytes of the merged regions that are holes of sparse files (whole pages), left out of the plan: they read as zeros.</summary>
    internal long BytesInHoles { get; }

    /// <summary>Bytes of the planned regions.</summary>
    internal long BytesPlanned { get; }

    internal long BytesAlreadyResident { get; }

    /// <summary>Bytes whose residency the kernel would not tell; not in <see cref="BytesAlreadyResident"/>, so they count as needed.</summary>
    internal long BytesAlreadyResidentUnknown { get; }

    /// <summary>Bytes that must still come in.</summary>
    internal long BytesNeeded => BytesPlanned - BytesAlreadyResident;

    /// <summary>
    /// Takes one snapshot of the mappings under <paramref name="merged"/>, cuts the holes of sparse files out of the
    /// regions, and measures the residency of each region.
    /// </summary>
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

    /// <summary>
    /// The regions in the caller's order until the not-yet-resident bytes reach <paramref name="budget"/>; the region
    /// that crosses it is cut.
    /// </summary>
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

    /// <summary>
    /// The planned regions' resident bytes now, counted as the plan was, over the plan's snapshot (0 where residency
    /// cannot be measured): after a sweep, what stayed resident, which under memory pressure can be less than what was
    /// swept; and the bytes whose residency the kernel would not tell (of a file whose cache it hides, those this
    /// process does not map: after a sweep, the pages reclaim took back, or all of them where /proc/self/pagemap is masked).
    /// </summary>
    internal long MeasureResidentNow(out long unknownBytes) => FileCacheProbe.CountResident(Ranges, Maps, out unknownBytes);
}
