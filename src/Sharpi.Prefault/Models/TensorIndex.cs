using System.IO.MemoryMappedFiles;

namespace Sharpi.Prefault;

/// <summary>
/// The tensors of a GGUF or safetensors model, read from its headers.
/// </summary>
public sealed class TensorIndex
{
    private TensorIndex(string path, TensorFormat format, IReadOnlyList<string> files, IReadOnlyList<TensorInfo> tensors)
    {
        Path = path;
        Format = format;
        Files = files;
        Tensors = tensors;
    }

    /// <summary>The full path the index was read from.</summary>
    public string Path { get; }

    /// <summary>The format the index was read from.</summary>
    public TensorFormat Format { get; }

    /// <summary>Full paths of the files holding tensor data.</summary>
    public IReadOnlyList<string> Files { get; }

    /// <summary>The tensors by file, then offset.</summary>
    public IReadOnlyList<TensorInfo> Tensors { get; }

    /// <summary>Reads the tensor table of a model.</summary>
    /// <exception cref="ArgumentException"><paramref name="path"/> is null or empty.</exception>
    /// <exception cref="ModelFormatException">A header is malformed or truncated.</exception>
    /// <exception cref="IOException">A file cannot be opened or read (for example a missing shard).</exception>
    public static TensorIndex Read(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        string full = System.IO.Path.GetFullPath(path);
        if (TensorFormats.IsShardIndex(full))
        {
            return ReadSharded(full, SafetensorsIndexReader.Read(full));
        }

        using FileStream stream = OpenRead(full);
        return Read(stream, full);
    }

    /// <summary>Reads a single-file model from a seekable stream.</summary>
    internal static TensorIndex Read(Stream stream, string path)
    {
        switch (TensorFormats.Detect(stream, path))
        {
            case TensorFormat.Gguf:
                return Create(path, TensorFormat.Gguf, [path], GgufReader.Read(stream, path));
            case TensorFormat.Safetensors:
                return Create(path, TensorFormat.Safetensors, [path], SafetensorsReader.Read(stream, path));
            default:
                ThrowHelper.ThrowModelFormat(path, 0, "neither a GGUF file (no \"GGUF\" magic) nor a safetensors file (no header length followed by '{').");
                return null;
        }
    }

    /// <summary>The tensors <paramref name="selection"/> selects.</summary>
    public IReadOnlyList<TensorInfo> Select(TensorSelection? selection)
    {
        if (selection is null || ReferenceEquals(selection, TensorSelection.All))
        {
            return Tensors;
        }

        var selected = new List<TensorInfo>();
        foreach (TensorInfo tensor in Tensors)
        {
            if (selection.Matches(tensor.Name))
            {
                selected.Add(tensor);
            }
        }

        return selected;
    }

    /// <summary>Regions over the selected tensors of a single-file model; the view maps it from 0.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="view"/> is null.</exception>
    /// <exception cref="ArgumentException">The model is sharded, or an include pattern matches no tensor.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A selected tensor lies outside the view.</exception>
    public IReadOnlyList<PrefaultRegion> Regions(MemoryMappedViewAccessor view, TensorSelection? selection = null)
    {
        ArgumentNullException.ThrowIfNull(view);
        if (Files.Count != 1)
        {
            ThrowHelper.ThrowShardRequired(Files.Count, nameof(view));
        }

        return Regions(Files[0], view, selection);
    }

    /// <summary>Regions over the selected tensors in <paramref name="file"/>; the view maps it from 0.</summary>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="file"/> is not in <see cref="Files"/>, or a pattern matches nothing.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A selected tensor lies outside the view.</exception>
    public IReadOnlyList<PrefaultRegion> Regions(string file, MemoryMappedViewAccessor view, TensorSelection? selection = null)
    {
        ArgumentNullException.ThrowIfNull(file);
        ArgumentNullException.ThrowIfNull(view);
        string full = System.IO.Path.GetFullPath(file);
        if (!Files.Contains(full))
        {
            ThrowHelper.ThrowUnknownFile(file, nameof(file));
        }

        ThrowIfAPatternMatchesNothing(selection, null, nameof(selection));
        var regions = new List<PrefaultRegion>();
        foreach (TensorInfo tensor in Select(selection))
        {
            if (tensor.FilePath != full)
            {
                continue;
            }

            if (tensor.End > view.Capacity)
            {
                ThrowHelper.ThrowTensorOutsideView(tensor.Name, tensor.Offset, tensor.Length, view.Capacity, nameof(view));
            }

            regions.Add(PrefaultRegion.FromView(view, tensor.Offset, tensor.Length, tensor.Name));
        }

        return regions;
    }

    /// <summary>Throws where an include pattern matches no tensor.</summary>
    internal void ThrowIfAPatternMatchesNothing(TensorSelection? selection, int? position, string paramName)
    {
        if (selection is null)
        {
            return;
        }

        foreach (string pattern in selection.Include)
        {
            if (!AnyTensorMatches(pattern))
            {
                ThrowHelper.ThrowPatternMatchesNothing(pattern, position, Path, Tensors, paramName);
            }
        }
    }

    private bool AnyTensorMatches(string pattern)
    {
        foreach (TensorInfo tensor in Tensors)
        {
            if (TensorSelection.GlobMatches(pattern, tensor.Name))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The merged byte ranges of the selected tensors, per file.</summary>
    public IReadOnlyList<FileByteRange> Ranges(TensorSelection? selection = null)
    {
        var ranges = new List<FileByteRange>();
        foreach (TensorInfo tensor in Select(selection))
        {
            if (tensor.Length == 0)
            {
                continue;
            }

            if (ranges.Count > 0 && ranges[^1] is var last && last.FilePath == tensor.FilePath && tensor.Offset <= last.End)
            {
                ranges[^1] = last with { Length = Math.Max(last.End, tensor.End) - last.Offset };
            }
            else
            {
                ranges.Add(new FileByteRange(tensor.FilePath, tensor.Offset, tensor.Length));
            }
        }

        return ranges;
    }

    /// <summary>A group key: the name up to its layer number, else less its last segment.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="tensorName"/> is null.</exception>
    public static string GroupKey(string tensorName)
    {
        ArgumentNullException.ThrowIfNull(tensorName);
        int start = 0;
        while (start <= tensorName.Length)
        {
            int dot = tensorName.IndexOf('.', start);
            int end = dot < 0 ? tensorName.Length : dot;
            if (end > start && IsDigits(tensorName.AsSpan(start, end - start)))
            {
                return tensorName[..end];
            }

            if (dot < 0)
            {
                break;
            }

            start = dot + 1;
        }

        int lastDot = tensorName.LastIndexOf('.');
        return lastDot > 0 ? tensorName[..lastDot] : tensorName;
    }

    private static bool IsDigits(ReadOnlySpan<char> segment)
    {
        foreach (char c in segment)
        {
            if (!char.IsAsciiDigit(c))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>The tensors of a sharded model.</summary>
    internal static TensorIndex ReadSharded(string indexPath, List<(string Tensor, string Shard)> map)
    {
        string directory = System.IO.Path.GetDirectoryName(indexPath)!;
        var files = new List<string>();
        var byShard = new Dictionary<string, HashSet<string>>(StringComparer.Ordinal);
        foreach ((string tensor, string shard) in map)
        {
            if (!byShard.TryGetValue(shard, out HashSet<string>? names))
            {
                byShard[shard] = names = new HashSet<string>(StringComparer.Ordinal);
                files.Add(System.IO.Path.Combine(directory, shard));
            }

            names.Add(tensor);
        }

        var tensors = new List<TensorInfo>();
        foreach (string file in files)
        {
            List<TensorInfo> shardTensors;
            using (FileStream stream = OpenRead(file))
            {
                shardTensors = SafetensorsReader.Read(stream, file);
            }

            HashSet<string> expected = byShard[System.IO.Path.GetFileName(file)];
            foreach (TensorInfo tensor in shardTensors)
            {
                expected.Remove(tensor.Name);
            }

            foreach (string missing in expected)
            {
                ThrowHelper.ThrowModelFormat(indexPath, 0,
                    $"weight_map places tensor '{missing}' in {System.IO.Path.GetFileName(file)}, but that shard's header has no such tensor.");
            }

            tensors.AddRange(shardTensors);
        }

        return Create(indexPath, TensorFormat.ShardedSafetensors, files, tensors);
    }

    /// <summary>Orders each file's tensors by offset; overlapping tensors are a corrupt or hostile header.</summary>
    private static TensorIndex Create(string path, TensorFormat format, List<string> files, List<TensorInfo> tensors)
    {
        if (files.Count == 1)
        {
            return new TensorIndex(path, format, files, InOffsetOrder(files[0], tensors));
        }

        var byFile = new Dictionary<string, List<TensorInfo>>(files.Count, StringComparer.Ordinal);
        foreach (string file in files)
        {
            byFile.TryAdd(file, []);
        }

        foreach (TensorInfo tensor in tensors)
        {
            if (byFile.TryGetValue(tensor.FilePath, out List<TensorInfo>? own))
            {
                own.Add(tensor);
            }
        }

        var ordered = new List<TensorInfo>(tensors.Count);
        foreach (string file in files)
        {
            if (!byFile.Remove(file, out List<TensorInfo>? own))
            {
                continue; // named twice: its tensors are in already
            }

            ordered.AddRange(InOffsetOrder(file, own));
        }

        return new TensorIndex(path, format, files, ordered);
    }

    /// <summary>One file's tensors by offset (the list itself where already in order), overlaps refused.</summary>
    private static List<TensorInfo> InOffsetOrder(string file, List<TensorInfo> own)
    {
        // Stable, so zero-length tensors at one offset keep the header's order.
        List<TensorInfo> sorted = IsInOffsetOrder(own) ? own : [.. own.OrderBy(t => t.Offset)];
        TensorInfo? previous = null;
        foreach (TensorInfo tensor in sorted)
        {
            if (tensor.Length == 0)
            {
                continue;
            }

            if (previous is not null && tensor.Offset < previous.End)
            {
                ThrowHelper.ThrowModelFormat(file, tensor.Offset,
                    $"tensor '{tensor.Name}' [{tensor.Offset}, {tensor.End}) overlaps tensor '{previous.Name}' [{previous.Offset}, {previous.End}).");
            }

            previous = tensor;
        }

        return sorted;
    }

    private static bool IsInOffsetOrder(List<TensorInfo> tensors)
    {
        for (int i = 1; i < tensors.Count; i++)
        {
            if (tensors[i].Offset < tensors[i - 1].Offset)
            {
                return false;
            }
        }

        return true;
    }

    // Read-ahead off and a page-sized buffer: reading a header must not pull tensor data into the page cache.
    private static FileStream OpenRead(string path) => FileOpener.OpenReadStream(path, bufferSize: 4096, FileOptions.RandomAccess);
}
