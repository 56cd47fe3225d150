using System.IO.MemoryMappedFiles;

namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// A read-only mapping of a whole file, as an engine maps its weights: the regions the commands prefault, measure
/// and lock point into it. An empty file has no view (a zero-length mapping is an error on every OS).
/// </summary>
internal sealed class FileMapping : IDisposable
{
    private readonly MemoryMappedFile? _map;
    private readonly MemoryMappedViewAccessor? _view;

    private FileMapping(FileTarget target, MemoryMappedFile? map, MemoryMappedViewAccessor? view)
    {
        Target = target;
        _map = map;
        _view = view;
    }

    public FileTarget Target { get; }

    public static FileMapping Open(FileTarget target)
    {
        var stream = new FileStream(target.FullPath, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1, FileOptions.None);
        if (stream.Length == 0)
        {
            stream.Dispose();
            return new FileMapping(target, null, null);
        }

        MemoryMappedFile map;
        try
        {
            map = MemoryMappedFile.CreateFromFile(stream, null, 0, MemoryMappedFileAccess.Read, HandleInheritability.None, leaveOpen: false);
        }
        catch
        {
            stream.Dispose();
            throw;
        }

        try
        {
            return new FileMapping(target, map, map.CreateViewAccessor(0, 0, MemoryMappedFileAccess.Read));
        }
        catch
        {
            map.Dispose();
            throw;
        }
    }

    /// <summary>A region over the whole file, named by its path.</summary>
    public PrefaultRegion Whole() => _view is null ? default : PrefaultRegion.FromView(_view, 0, Target.Length, Target.DisplayPath);

    /// <summary>A region over a range of the file.</summary>
    public PrefaultRegion Range(long offset, long length, string? name = null) =>
        _view is null ? default : PrefaultRegion.FromView(_view, offset, length, name);

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

    public void Dispose()
    {
        _view?.Dispose();
        _map?.Dispose();
    }
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
