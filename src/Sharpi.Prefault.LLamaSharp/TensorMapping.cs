namespace Sharpi.Prefault.LLamaSharp;

/// <summary>
/// Where llama.cpp's mapping of the model holds each tensor (<see cref="NativeMappings.OfTensors"/>, looked up once),
/// and the give-back of a set of them (<see cref="MmapReclaim"/>).
/// </summary>
internal sealed class TensorMapping
{
    private readonly Dictionary<string, List<PrefaultRegion>> _regions = new(StringComparer.Ordinal);

    private TensorMapping()
    {
    }

    /// <summary>No tensor mapped.</summary>
    internal static TensorMapping Empty => new();

    /// <summary>Bytes given back so far.</summary>
    internal long Released { get; private set; }

    /// <summary>Time spent in <see cref="MmapReclaim.Release(IReadOnlyList{PrefaultRegion}, ReclaimOptions?)"/> so far.</summary>
    internal TimeSpan ReleaseTime { get; private set; }

    /// <summary>Calls made to give back.</summary>
    internal int ReleaseCalls { get; private set; }

    /// <summary>The tensors' places in this process's mappings of the model now (none where nothing maps it).</summary>
    internal static TensorMapping Find(TensorIndex index)
    {
        var mapping = new TensorMapping();
        foreach (PrefaultRegion r in NativeMappings.OfTensors(index))
        {
            string name = r.Name!;
            if (!mapping._regions.TryGetValue(name, out List<PrefaultRegion>? list))
            {
                mapping._regions[name] = list = [];
            }

            list.Add(r);
        }

        return mapping;
    }

    internal bool IsEmpty => _regions.Count == 0;

    /// <summary>Mapped bytes of a tensor (0 where it is not mapped).</summary>
    internal long Bytes(string name)
    {
        long bytes = 0;
        if (_regions.TryGetValue(name, out List<PrefaultRegion>? list))
        {
            foreach (PrefaultRegion r in list)
            {
                bytes += r.Length;
            }
        }

        return bytes;
    }

    /// <summary>The mapped regions of the named tensors.</summary>
    internal List<PrefaultRegion> Regions(IEnumerable<string> names)
    {
        var regions = new List<PrefaultRegion>();
        foreach (string name in names)
        {
            if (_regions.TryGetValue(name, out List<PrefaultRegion>? list))
            {
                regions.AddRange(list);
            }
        }

        return regions;
    }

    /// <summary>The mapped regions of every tensor not in <paramref name="excluded"/>.</summary>
    internal List<PrefaultRegion> RegionsExcept(HashSet<string> excluded)
    {
        var regions = new List<PrefaultRegion>();
        foreach ((string name, List<PrefaultRegion> list) in _regions)
        {
            if (!excluded.Contains(name))
            {
                regions.AddRange(list);
            }
        }

        return regions;
    }

    /// <summary>Gives back the pages of the named tensors; throws what <see cref="MmapReclaim"/> throws (a region it refuses).</summary>
    internal void Release(IEnumerable<string> names, string label, Microsoft.Extensions.Logging.ILogger? logger)
    {
        List<PrefaultRegion> regions = Regions(names);
        if (regions.Count == 0)
        {
            return;
        }

        // MADV_DONTNEED, not the core's default MADV_PAGEOUT: llama.cpp maps the file read-only and shared and never
        // remaps it while it loads (the race PAGEOUT guards against cannot happen), and PAGEOUT would release nothing
        // for the usual deployment, a service user reading root-owned weights (the kernel pages out a file's pages only
        // for its owner or a writer), and would drop the file from the page cache for the next process too.
        long started = System.Diagnostics.Stopwatch.GetTimestamp();
        ReclaimResult result = MmapReclaim.Release(regions, new ReclaimOptions { Label = label, Logger = logger, Mechanism = ReclaimMechanism.DontNeed });
        ReleaseTime += System.Diagnostics.Stopwatch.GetElapsedTime(started);
        ReleaseCalls++;
        Released += result.BytesReleased;
    }
}
