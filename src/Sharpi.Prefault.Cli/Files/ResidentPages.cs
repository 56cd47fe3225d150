namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// Which pages of one file were resident in the page cache when it was measured, kept as sorted runs of bytes, so any
/// byte range (the whole file, a tensor) is answered from that one measurement, to the byte: a resident page counts
/// only its bytes inside the range (a tensor starting mid-page is not credited with the header bytes before it).
/// </summary>
internal sealed class ResidentPages
{
    /// <summary>Pages per block at the coarser levels of the measurement: 1 GiB spans, then 2 MiB blocks (at 4 KiB pages).</summary>
    private static readonly long[] LevelPages = [1L << 18, 1L << 9];

    private readonly List<(long Start, long End)> _runs;
    private readonly List<(long Start, long End)> _unknown;

    private ResidentPages(long length, List<(long Start, long End)> runs, List<(long Start, long End)> unknown)
    {
        Length = length;
        _runs = runs;
        _unknown = unknown;
    }

    /// <summary>The file's length when it was measured.</summary>
    public long Length { get; }

    /// <summary>
    /// Measures the mapped file (which must not have been read through this mapping), coarse first: all its 1 GiB spans
    /// in one call, and only a span with some pages resident and some not again, in 2 MiB blocks (one call), and the
    /// mixed blocks of that span page by page (one call).
    /// </summary>
    public static ResidentPages Measure(FileMapping mapping)
    {
        var runs = new List<(long Start, long End)>();
        var unknown = new List<(long Start, long End)>();
        long length = mapping.Target.Length;
        PrefaultRegion whole = mapping.Whole();
        var spans = Split(0, length, LevelPages[0] * Environment.SystemPageSize);
        foreach ((long offset, long bytes) in Classify(whole, spans, runs, unknown))
        {
            var blocks = Split(offset, bytes, LevelPages[1] * Environment.SystemPageSize);
            var pages = new List<(long Offset, long Length)>();
            foreach ((long blockOffset, long blockBytes) in Classify(whole, blocks, runs, unknown))
            {
                pages.AddRange(Split(blockOffset, blockBytes, Environment.SystemPageSize));
            }

            // A page is resident, not resident, or unknown: nothing of this level is mixed.
            _ = Classify(whole, pages, runs, unknown);
        }

        return new ResidentPages(length, Merge(runs), Merge(unknown));
    }

    /// <summary>The bytes of [<paramref name="offset"/>, +<paramref name="length"/>) that lay in resident pages.</summary>
    public long ResidentBytes(long offset, long length) => BytesIn(_runs, offset, length);

    /// <summary>
    /// The bytes of [<paramref name="offset"/>, +<paramref name="length"/>) whose residency the kernel would not tell
    /// (a file this user cannot write; see <see cref="ResidencyInfo.UnknownBytes"/>); not in <see cref="ResidentBytes"/>.
    /// </summary>
    public long UnknownBytes(long offset, long length) => BytesIn(_unknown, offset, length);

    private long BytesIn(List<(long Start, long End)> runs, long offset, long length)
    {
        long end = Math.Min(offset + length, Length);
        long total = 0;
        int first = FirstRunEndingAfter(runs, offset);
        for (int i = first; i < runs.Count && runs[i].Start < end; i++)
        {
            total += Math.Max(0, Math.Min(end, runs[i].End) - Math.Max(offset, runs[i].Start));
        }

        return total;
    }

    /// <summary>
    /// Measures <paramref name="blocks"/> in one call: a wholly resident block becomes a run, a block the kernel would
    /// not tell of becomes an unknown run, a block with nothing resident is dropped, and the mixed ones are returned to
    /// be measured finer.
    /// </summary>
    private static List<(long Offset, long Length)> Classify(
        PrefaultRegion whole, List<(long Offset, long Length)> blocks, List<(long Start, long End)> runs, List<(long Start, long End)> unknownRuns)
    {
        var mixed = new List<(long Offset, long Length)>();
        if (blocks.Count == 0)
        {
            return mixed;
        }

        var regions = new PrefaultRegion[blocks.Count];
        for (int i = 0; i < blocks.Count; i++)
        {
            regions[i] = new PrefaultRegion(whole.Address + (nint)blocks[i].Offset, blocks[i].Length);
        }

        ResidencyInfo[] measured = Residency.MeasureEach(regions);
        for (int i = 0; i < blocks.Count; i++)
        {
            (long offset, long bytes) = blocks[i];
            long resident = measured[i].ResidentBytes;
            long unknown = measured[i].UnknownBytes;
            bool onePage = bytes <= Environment.SystemPageSize;
            if (resident >= bytes || (resident > 0 && onePage))
            {
                runs.Add((offset, offset + bytes));
            }
            else if (unknown >= bytes || (unknown > 0 && onePage))
            {
                unknownRuns.Add((offset, offset + bytes));
            }
            else if (resident > 0 || unknown > 0)
            {
                mixed.Add(blocks[i]);
            }
        }

        return mixed;
    }

    private static List<(long Offset, long Length)> Split(long offset, long length, long size)
    {
        var parts = new List<(long Offset, long Length)>((int)Math.Min((length + size - 1) / size, 1 << 20));
        for (long at = offset; at < offset + length; at += size)
        {
            parts.Add((at, Math.Min(size, offset + length - at)));
        }

        return parts;
    }

    private static List<(long Start, long End)> Merge(List<(long Start, long End)> runs)
    {
        runs.Sort((a, b) => a.Start.CompareTo(b.Start));
        var merged = new List<(long Start, long End)>(runs.Count);
        foreach ((long start, long end) in runs)
        {
            if (merged.Count > 0 && merged[^1].End >= start)
            {
                merged[^1] = (merged[^1].Start, Math.Max(merged[^1].End, end));
            }
            else
            {
                merged.Add((start, end));
            }
        }

        return merged;
    }

    /// <summary>The index of the first run that ends after <paramref name="offset"/> (binary search).</summary>
    private static int FirstRunEndingAfter(List<(long Start, long End)> runs, long offset)
    {
        int low = 0;
        int high = runs.Count;
        while (low < high)
        {
            int middle = (low + high) / 2;
            if (runs[middle].End <= offset)
            {
                low = middle + 1;
            }
            else
            {
                high = middle;
            }
        }

        return low;
    }
}
