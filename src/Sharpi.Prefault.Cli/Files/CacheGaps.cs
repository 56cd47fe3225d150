namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// Which parts of a mapped file's regions are not in the page cache, in 2 MiB blocks aligned to file offsets: what
/// <c>keep</c> reads back.
/// </summary>
internal static class CacheGaps
{
    /// <summary>The coarse measure: 1 GiB.</summary>
    internal const long SpanBytes = 1L << 30;

    /// <summary>The unit of what is read back: 2 MiB, the size of a huge page and of the largest page-cache folios.</summary>
    internal const long BlockBytes = 2L << 20;

    /// <summary>
    /// The regions' bytes, those resident, and the blocks (clipped to the regions, adjacent ones merged) that are not
    /// wholly resident, in file order, each with where it starts in the selection (the bytes of the regions before it).
    /// </summary>
    internal sealed record Gaps(long Bytes, long ResidentBytes, List<Part> Missing)
    {
        public long MissingBytes => Bytes - ResidentBytes;

        /// <summary>Of <see cref="MissingBytes"/>, those whose residency the kernel would not tell.</summary>
        public long UnknownBytes { get; init; }
    }

    /// <summary>A piece of the regions, and its first byte's position in them (counted over the regions in order).</summary>
    internal readonly record struct Part(PrefaultRegion Region, long At);

    /// <param name="mapping">The file, mapped (it must stay mapped while the result's regions are used).</param>
    /// <param name="regions">Regions inside <paramref name="mapping"/>: the whole file or the selected tensors.</param>
    public static Gaps Find(FileMapping mapping, IReadOnlyList<PrefaultRegion> regions)
    {
        var missing = new List<Part>();
        long bytes = 0, resident = 0, unknown = 0;
        if (regions.Count == 0)
        {
            return new Gaps(0, 0, missing);
        }

        nint fileStart = mapping.Whole().Address;
        List<Part> whole = Whole(regions);

        var mixed = new List<Part>();
        foreach ((Part span, long spanResident, long spanUnknown) in Measure(Split(whole, fileStart, SpanBytes)))
        {
            bytes += span.Region.Length;
            if (spanResident >= span.Region.Length)
            {
                resident += span.Region.Length;
            }
            else if (spanResident == 0)
            {
                unknown += spanUnknown;
                Add(missing, span);
            }
            else
            {
                mixed.Add(span);
            }
        }

        foreach ((Part block, long blockResident, long blockUnknown) in Measure(Split(mixed, fileStart, BlockBytes)))
        {
            resident += Math.Min(blockResident, block.Region.Length);
            if (blockResident < block.Region.Length)
            {
                unknown += blockUnknown;
                Add(missing, block);
            }
        }

        missing.Sort((a, b) => a.At.CompareTo(b.At));
        return new Gaps(bytes, resident, Merge(missing)) { UnknownBytes = unknown };
    }

    private static List<(Part Part, long Resident, long Unknown)> Measure(List<Part> parts)
    {
        var measured = new List<(Part, long, long)>(parts.Count);
        if (parts.Count == 0)
        {
            return measured;
        }

        ResidencyInfo[] figures = Residency.MeasureEach(parts.ConvertAll(p => p.Region));
        for (int i = 0; i < parts.Count; i++)
        {
            measured.Add((parts[i], figures[i].ResidentBytes, figures[i].UnknownBytes));
        }

        return measured;
    }

    /// <summary>Cuts each region at the multiples of <paramref name="size"/> counted from the file's start.</summary>
    private static List<Part> Split(List<Part> pieces, nint fileStart, long size)
    {
        var parts = new List<Part>();
        foreach ((PrefaultRegion region, long at) in pieces)
        {
            long start = region.Address - fileStart;
            long end = start + region.Length;
            for (long offset = start; offset < end;)
            {
                long next = Math.Min(end, ((offset / size) + 1) * size);
                parts.Add(new Part(new PrefaultRegion(fileStart + (nint)offset, next - offset, region.Name), at + (offset - start)));
                offset = next;
            }
        }

        return parts;
    }

    private static void Add(List<Part> missing, Part part)
    {
        if (!part.Region.IsEmpty)
        {
            missing.Add(part);
        }
    }

    /// <summary>Adjacent blocks become one region (named by the first), so a run of evicted blocks is one range to read.</summary>
    private static List<Part> Merge(List<Part> sorted)
    {
        var merged = new List<Part>(sorted.Count);
        foreach (Part part in sorted)
        {
            if (merged.Count > 0 && merged[^1].Region.End == part.Region.Address)
            {
                Part last = merged[^1];
                merged[^1] = last with { Region = last.Region with { Length = last.Region.Length + part.Region.Length } };
            }
            else
            {
                merged.Add(part);
            }
        }

        return merged;
    }

    /// <summary>Every region as one part, each with where it starts in the selection: a sweep of the whole selection.</summary>
    public static List<Part> Whole(IReadOnlyList<PrefaultRegion> regions)
    {
        var parts = new List<Part>(regions.Count);
        long at = 0;
        foreach (PrefaultRegion region in regions)
        {
            parts.Add(new Part(region, at));
            at += region.Length;
        }

        return parts;
    }

    /// <summary>The missing parts that lie within the first <paramref name="budget"/> bytes of the selection, the last one cut there.</summary>
    public static List<PrefaultRegion> Within(List<Part> missing, long budget)
    {
        var within = new List<PrefaultRegion>(missing.Count);
        foreach ((PrefaultRegion region, long at) in missing)
        {
            if (at >= budget)
            {
                break;
            }

            within.Add(at + region.Length <= budget ? region : region with { Length = budget - at });
        }

        return within;
    }
}
