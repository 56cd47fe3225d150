using System.IO.MemoryMappedFiles;

namespace Sharpi.Prefault;

/// <summary>
/// A GGUF, safetensors (sharded or not) or plain file mapped read-only.
/// </summary>
public sealed class MappedModel : IDisposable
{
    private readonly MemoryMappedViewAccessor?[] _views;
    private readonly long[] _lengths;
    private readonly Dictionary<string, int> _fileIndex;
    private bool _disposed;

    private MappedModel(string path, TensorIndex? index, IReadOnlyList<string> files, MemoryMappedViewAccessor?[] views, long[] lengths)
    {
        Path = path;
        Index = index;
        Files = files;
        _views = views;
        _lengths = lengths;
        _fileIndex = new Dictionary<string, int>(files.Count, StringComparer.Ordinal);
        for (int i = 0; i < files.Count; i++)
        {
            _fileIndex[files[i]] = i;
        }
    }

    /// <summary>The full path the model was opened from.</summary>
    public string Path { get; }

    /// <summary>The model's tensors; null for a plain file (neither GGUF nor safetensors).</summary>
    public TensorIndex? Index { get; }

    /// <summary>Full paths of the mapped files, shards in index order.</summary>
    public IReadOnlyList<string> Files { get; }

    /// <summary>The total length in bytes of the mapped files.</summary>
    public long Length
    {
        get
        {
            long total = 0;
            foreach (long length in _lengths)
            {
                total += length;
            }

            return total;
        }
    }

    /// <summary>Maps a model read-only.</summary>
    /// <exception cref="ArgumentException"><paramref name="path"/> is null or empty.</exception>
    /// <exception cref="FileNotFoundException">The file, or a shard the index names, does not exist.</exception>
    /// <exception cref="IOException">A path names no regular file, or a file cannot be read or mapped.</exception>
    /// <exception cref="UnauthorizedAccessException">A file cannot be opened for reading.</exception>
    /// <exception cref="ModelFormatException">A model header is malformed, or a tensor lies past the end of its file.</exception>
    public static MappedModel Open(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        string full = System.IO.Path.GetFullPath(path);
        FileStatus.RequireRegular(full);
        TensorIndex? index = ReadIndex(full);
        IReadOnlyList<string> files = index?.Files ?? [full];
        var views = new MemoryMappedViewAccessor?[files.Count];
        long[] lengths = new long[files.Count];
        try
        {
            for (int i = 0; i < files.Count; i++)
            {
                (views[i], lengths[i]) = MapReadOnly(files[i]);
            }

            var model = new MappedModel(full, index, files, views, lengths);
            model.ThrowIfTensorPastEnd();
            return model;
        }
        catch
        {
            foreach (MemoryMappedViewAccessor? view in views)
            {
                view?.Dispose();
            }

            throw;
        }
    }

    /// <summary>Maps one file whole, read-only; <see cref="Index"/> is null.</summary>
    /// <exception cref="ArgumentException"><paramref name="path"/> is null or empty.</exception>
    /// <exception cref="FileNotFoundException">The file does not exist.</exception>
    /// <exception cref="IOException">The path names no regular file, or it cannot be read or mapped.</exception>
    /// <exception cref="UnauthorizedAccessException">The file cannot be opened for reading.</exception>
    public static MappedModel OpenFile(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        string full = System.IO.Path.GetFullPath(path);
        (MemoryMappedViewAccessor? view, long length) = MapReadOnly(full);
        return new MappedModel(full, null, [full], [view], [length]);
    }

    /// <summary>Regions to prefault, hottest selection first; no selection means the whole model.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="selectionsInOrder"/> or one of its selections is null.</exception>
    /// <exception cref="ArgumentException">An include pattern matches no tensor of the model.</exception>
    /// <exception cref="ObjectDisposedException">The model was disposed.</exception>
    public IReadOnlyList<PrefaultRegion> Regions(params TensorSelection[] selectionsInOrder)
    {
        ArgumentNullException.ThrowIfNull(selectionsInOrder);
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (Index is null || selectionsInOrder.Length == 0)
        {
            return WholeFileRegions(selectionsInOrder);
        }

        List<TensorInfo> tensors = HotFirstSelection.Select(Index, selectionsInOrder, nameof(selectionsInOrder));
        var regions = new PrefaultRegion[tensors.Count];
        for (int i = 0; i < regions.Length; i++)
        {
            regions[i] = TensorRegion(tensors[i]);
        }

        return regions;
    }

    /// <summary>The region over one tensor's bytes in the mapping, named by the tensor.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="tensor"/> is null.</exception>
    /// <exception cref="ArgumentException">The tensor lies in a file this model did not map, or outside it.</exception>
    /// <exception cref="ObjectDisposedException">The model was disposed.</exception>
    public PrefaultRegion Region(TensorInfo tensor)
    {
        ArgumentNullException.ThrowIfNull(tensor);
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (!_fileIndex.TryGetValue(tensor.FilePath, out int file))
        {
            ThrowHelper.ThrowTensorNotInModel(tensor.Name, tensor.FilePath, nameof(tensor));
        }

        ThrowHelper.ThrowIfRangeOutside(tensor.Offset, tensor.Length, _lengths[file], nameof(tensor), nameof(tensor));
        return TensorRegion(tensor);
    }

    /// <summary>The region over one whole mapped file, named by its path; empty for an empty file.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="file"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="file"/> is not one of <see cref="Files"/>.</exception>
    /// <exception cref="ObjectDisposedException">The model was disposed.</exception>
    public PrefaultRegion FileRegion(string file)
    {
        ArgumentNullException.ThrowIfNull(file);
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (!_fileIndex.TryGetValue(System.IO.Path.GetFullPath(file), out int index))
        {
            ThrowHelper.ThrowFileNotInModel(file, nameof(file));
        }

        return FileRegion(index);
    }

    /// <summary>Unmaps every file; regions handed out before become invalid.</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        foreach (MemoryMappedViewAccessor? view in _views)
        {
            view?.Dispose();
        }
    }

    private List<PrefaultRegion> WholeFileRegions(TensorSelection[] selectionsInOrder)
    {
        for (int i = 0; i < selectionsInOrder.Length; i++)
        {
            if (selectionsInOrder[i] is null)
            {
                ThrowHelper.ThrowNullSelection(i, nameof(selectionsInOrder));
            }
        }

        var regions = new List<PrefaultRegion>(Files.Count);
        for (int i = 0; i < Files.Count; i++)
        {
            if (_views[i] is not null)
            {
                regions.Add(FileRegion(i));
            }
        }

        return regions;
    }

    private PrefaultRegion FileRegion(int file) =>
        _views[file] is { } view ? PrefaultRegion.FromView(view, 0, _lengths[file], Files[file]) : default;

    /// <summary>A tensor's region (bounds checked at open).</summary>
    private PrefaultRegion TensorRegion(TensorInfo tensor)
    {
        int file = _fileIndex[tensor.FilePath];
        return _views[file] is { } view
            ? PrefaultRegion.FromView(view, tensor.Offset, tensor.Length, tensor.Name)
            : new PrefaultRegion(0, 0, tensor.Name);
    }

    /// <summary>Fails a file cut short between header read and map.</summary>
    private void ThrowIfTensorPastEnd()
    {
        if (Index is null)
        {
            return;
        }

        foreach (TensorInfo tensor in Index.Tensors)
        {
            long length = _lengths[_fileIndex[tensor.FilePath]];
            if (tensor.End > length)
            {
                ThrowHelper.ThrowTensorPastEnd(tensor.Name, tensor.End, tensor.FilePath, length);
            }
        }
    }

    private static TensorIndex? ReadIndex(string full)
    {
        if (TensorFormats.IsShardIndex(full))
        {
            // Shards are checked to be regular files first: opening a FIFO blocks forever.
            List<(string Tensor, string Shard)> map = SafetensorsIndexReader.Read(full);
            foreach (string shard in SafetensorsIndexReader.ShardPaths(map, full))
            {
                FileStatus.RequireRegular(shard);
            }

            return TensorIndex.ReadSharded(full, map);
        }

        using FileStream stream = OpenRead(full, FileOptions.RandomAccess);
        return TensorFormats.Detect(stream, full) != TensorFormat.Unknown || TensorFormats.HasModelName(full) ? TensorIndex.Read(stream, full) : null;
    }

    /// <summary>Maps a whole file read-only and closes its descriptor.</summary>
    private static (MemoryMappedViewAccessor? View, long Length) MapReadOnly(string file)
    {
        FileStatus.RequireRegular(file);
        using FileStream stream = OpenRead(file, FileOptions.None);
        long length = stream.Length;
        if (length == 0)
        {
            return (null, 0);
        }

        try
        {
            using MemoryMappedFile map = MemoryMappedFile.CreateFromFile(stream, null, 0, MemoryMappedFileAccess.Read, HandleInheritability.None, leaveOpen: true);
            return (map.CreateViewAccessor(0, 0, MemoryMappedFileAccess.Read), length);
        }
        catch (UnauthorizedAccessException) when ((OperatingSystem.IsLinux() || OperatingSystem.IsMacOS())
            && FileOpener.MmapRefusal(stream.SafeFileHandle, length, file) is PlatformCallException refusal)
        {
            // The open succeeded: the framework's "access denied" was mmap's, and the error says so.
            throw refusal;
        }
    }

    private static FileStream OpenRead(string path, FileOptions options) => FileOpener.OpenReadStream(path, bufferSize: 1, options);
}
