
namespace Sharpi.Prefault;

/// <summary>Regions over mappings an engine's native loader made, to prefault.</summary>
public static class NativeMappings
{
    /// <summary>True on Linux, macOS and Windows.</summary>
    public static bool IsSupported => MappingFinder.IsSupported;

    /// <summary>
    /// This process's mappings of <paramref name="path"/>, one region each in address order, named by the full path and
    /// ending at the file's end.
    /// </summary>
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

    /// <summary>
    /// This process's mappings of the selected tensors, hot first: the first selection's in file order, then each later
    /// one's new tensors (none given: all).
    /// </summary>
    /// <exception cref="ArgumentException">An argument or selection is null, or an include pattern matches no tensor.</exception>
    /// <exception cref="IOException">An index file is gone (<see cref="FileNotFoundException"/>), not regular, or unreadable.</exception>
    /// <exception cref="PlatformNotSupportedException">Windows (no view file offsets), or an unsupported OS.</exception>
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
