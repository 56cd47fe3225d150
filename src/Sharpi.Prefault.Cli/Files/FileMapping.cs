using System.IO.MemoryMappedFiles;

namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// A read-only mapping of a whole file, as an engine maps its weights: the regions the commands prefault, measure
/// and lock point into it. An empty file has no view (a zero-length mapping is an error on every OS).
/// </summary>
internal sealed class FileMapping : IDisposable
{
    private readonly MemoryMappedViewAccessor? _view;

    private FileMapping(FileTarget target, MemoryMappedViewAccessor? view)
    {
        Target = target;
        _view = view;
    }

    public FileTarget Target { get; }

    /// <summary>
    /// Maps the file and closes its descriptor at once: the mapping stays valid without it (mmap's pages belong to
    /// the mapping, not the fd), so a command over thousands of files holds one descriptor at a time, not one per
    /// file (which ran out at <c>ulimit -n</c>).
    /// </summary>
    /// <exception cref="IOException">Not a regular file, or shorter than when it was sized.</exception>
    public static FileMapping Open(FileTarget target)
    {
        if (PathKinds.Refusal(PathKinds.Of(target.FullPath)) is string refusal)
        {
            throw new IOException(refusal);
        }

        using var stream = new FileStream(target.FullPath, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1, FileOptions.None);
        long length = stream.Length;
        if (length < target.Length)
        {
            throw new IOException($"shrank from {target.Length} to {length} bytes while being read; run again once it is written.");
        }

        if (target.Length == 0)
        {
            return new FileMapping(target, null);
        }

        using MemoryMappedFile map = MemoryMappedFile.CreateFromFile(stream, null, 0, MemoryMappedFileAccess.Read, HandleInheritability.None, leaveOpen: true);
        return new FileMapping(target, map.CreateViewAccessor(0, target.Length, MemoryMappedFileAccess.Read));
    }

    /// <summary>A region over the whole file, named by its path.</summary>
    public PrefaultRegion Whole() => _view is null ? default : PrefaultRegion.FromView(_view, 0, Target.Length, Target.DisplayPath);

    /// <summary>A region over a range of the file.</summary>
    public PrefaultRegion Range(long offset, long length, string? name = null)
    {
        if (_view is null || length == 0)
        {
            return default;
        }

        if (offset < 0 || length < 0 || offset > _view.Capacity - length)
        {
            throw new IOException($"a tensor at [{offset}, {offset + length}) lies outside the {_view.Capacity} bytes mapped; the file changed while being read.");
        }

        return PrefaultRegion.FromView(_view, offset, length, name);
    }

    /// <summary>
    /// What the command line asked for in this file: the whole file, or one region per selected tensor (named by
    /// tensor) when tensors were named.
    /// </summary>
    public List<PrefaultRegion> Regions(bool tensorsOnly)
    {
        var regions = new List<PrefaultRegion>();
        if (_view is null)
        {
            return regions;
        }

        if (!tensorsOnly || Target.Tensors is null)
        {
            regions.Add(Whole());
            return regions;
        }

        foreach (TensorInfo tensor in Target.Tensors)
        {
            regions.Add(Range(tensor.Offset, tensor.Length, tensor.Name));
        }

        return regions;
    }

    public void Dispose() => _view?.Dispose();
}

/// <summary>The mappings of one command, disposed together.</summary>
internal sealed class FileMappings : IDisposable
{
    private readonly List<FileMapping> _mappings = [];

    public IReadOnlyList<FileMapping> Items => _mappings;

    /// <summary>Maps each target; a target that cannot be mapped is reported and left out.</summary>
    public static FileMappings Open(Commands.CliContext context, IReadOnlyList<FileTarget> targets)
    {
        var mappings = new FileMappings();
        foreach (FileTarget target in targets)
        {
            try
            {
                mappings._mappings.Add(FileMapping.Open(target));
            }
            catch (Exception e) when (FileErrors.IsExpected(e))
            {
                context.Fail(target.DisplayPath, FileErrors.Describe(e));
            }
        }

        return mappings;
    }

    public void Dispose()
    {
        foreach (FileMapping mapping in _mappings)
        {
            mapping.Dispose();
        }
    }
}
