
namespace Sharpi.Prefault;

/// <summary>Finds where an engine's native code mapped the weights, as regions to prefault.</summary>
public static class NativeMappings
{
    /// <summary>True on Linux, macOS and Windows.</summary>
    public static bool IsSupported => MappingFinder.IsSupported;

    /// <summary>The ranges of this process that map <paramref name="path"/>, in address order.</summary>
    /// <exception cref="ArgumentException"><paramref name="path"/> is null or empty.</exception>
    /// <exception cref="IOException">No regular file is there (<see cref="FileNotFoundException"/>: nothing), or it is unreadable.</exception>
    /// <exception cref="PlatformNotSupportedException"><see cref="IsSupported"/> is false.</exception>
    public static IReadOnlyList<PrefaultRegion> OfFile(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        string full = Path.GetFullPath(path);
        FileStatus status = FileStatus.RequireRegular(full);
        List<MappedRange> ranges = MappingFinder.Find([MappingFinder.IdentityOf(full, status)])[0];
        var regions = new List<PrefaultRegion>(ranges.Count);
        foreach (MappedRange range in ranges)
        {
            long length = range.HasFileOffset ? Math.Min(range.Length, status.Length - range.FileOffset) : range.Length;
            if (length > 0)
            {
                regions.Add(new PrefaultRegion(range.Start, length, full));
            }
        }

        return regions;
    }

    /// <summary>The ranges of this process that map the selected tensors, hottest selection first.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="index"/>, <paramref name="selectionsInOrder"/> or one of its selections is null.</exception>
    /// <exception cref="ArgumentException">An include pattern matches no tensor.</exception>
    /// <exception cref="FileNotFoundException">A file of the index no longer exists.</exception>
    /// <exception cref="IOException">A file of the index is no longer a regular file, or cannot be read.</exception>
    /// <exception cref="PlatformNotSupportedException">Not Linux or macOS.</exception>
    public static IReadOnlyList<PrefaultRegion> OfTensors(TensorIndex index, params TensorSelection[] selectionsInOrder)
    {
        ArgumentNullException.ThrowIfNull(index);
        ArgumentNullException.ThrowIfNull(selectionsInOrder);
        if (OperatingSystem.IsWindows())
        {
            ThrowHelper.ThrowMappingOffsetsUnknown();
        }

        List<TensorInfo> tensors = HotFirstSelection.Select(index, selectionsInOrder.Length == 0 ? [TensorSelection.All] : selectionsInOrder,
            nameof(selectionsInOrder));
        var identities = new FileIdentity[index.Files.Count];
        var lengths = new long[index.Files.Count];
        var fileNumbers = new Dictionary<string, int>(index.Files.Count, StringComparer.Ordinal);
        for (int i = 0; i < identities.Length; i++)
        {
            FileStatus status = FileStatus.RequireRegular(index.Files[i]);
            identities[i] = MappingFinder.IdentityOf(index.Files[i], status);
            lengths[i] = status.Length;
            fileNumbers[index.Files[i]] = i;
        }

        List<MappedRange>[] ranges = MappingFinder.Find(identities);
        var regions = new List<PrefaultRegion>(tensors.Count);
        foreach (TensorInfo tensor in tensors)
        {
            int file = fileNumbers[tensor.FilePath];
            long end = Math.Min(tensor.End, lengths[file]);
            foreach (MappedRange range in ranges[file])
            {
                long first = Math.Max(tensor.Offset, range.FileOffset);
                long last = Math.Min(end, range.FileOffset + range.Length);
                if (first < last)
                {
                    regions.Add(new PrefaultRegion(range.Start + (nint)(first - range.FileOffset), last - first, tensor.Name));
                }
            }
        }

        return regions;
    }
}
