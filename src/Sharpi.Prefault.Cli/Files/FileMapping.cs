namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// One target mapped read-only through <see cref="MappedModel"/>, as an engine maps its weights: the regions the
/// commands prefault, measure and lock point into it.
/// </summary>
internal sealed class FileMapping : IDisposable
{
    private readonly MappedModel _model;

    private FileMapping(FileTarget target, MappedModel model)
    {
        Target = target;
        _model = model;
    }

    public FileTarget Target { get; }

    /// <summary>
    /// Maps the file; <see cref="MappedModel"/> closes its descriptor at once (the mapping stays valid without it), so
    /// a command over thousands of files holds one descriptor at a time, not one per file (which ran out at <c>ulimit
    /// -n</c>).
    /// </summary>
    /// <exception cref="IOException">Not a regular file, or shorter than when it was sized.</exception>
    public static FileMapping Open(FileTarget target)
    {
        // The tool's own words for what it refuses, before the library's (the same checks, told for a command line).
        if (PathCheck.Of(target.FullPath).Refusal is string refusal)
        {
            throw new IOException(refusal);
        }

        MappedModel model = MappedModel.OpenFile(target.FullPath);
        if (model.Length < target.Length)
        {
            long length = model.Length;
            model.Dispose();
            throw new IOException($"shrank from {target.Length} to {length} bytes while being read; run again once it is written.");
        }

        return new FileMapping(target, model);
    }

    /// <summary>A region over the whole file as it was sized, named by its path as the user wrote it.</summary>
    public PrefaultRegion Whole() =>
        Target.Length == 0 ? default : _model.FileRegion(Target.FullPath) with { Length = Target.Length, Name = Target.DisplayPath };

    /// <summary>A tensor's region, named by the tensor.</summary>
    /// <exception cref="IOException">The tensor ends past the file as it was sized: the file changed while being read.</exception>
    public PrefaultRegion Region(TensorInfo tensor)
    {
        if (tensor.End > Target.Length)
        {
            throw new IOException($"a tensor at [{tensor.Offset}, {tensor.End}) lies outside the {Target.Length} bytes mapped; the file changed while being read.");
        }

        return Target.Length == 0 ? default : _model.Region(tensor);
    }

    /// <summary>
    /// What the command line asked for in this file: the whole file, or one region per selected tensor (named by
    /// tensor) when tensors were named.
    /// </summary>
    public List<PrefaultRegion> Regions(bool tensorsOnly)
    {
        var regions = new List<PrefaultRegion>();
        if (Target.Length == 0)
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
            regions.Add(Region(tensor));
        }

        return regions;
    }

    public void Dispose() => _model.Dispose();
}

/// <summary>The mappings of one command, disposed together.</summary>
internal sealed class FileMappings : IDisposable
{
    private readonly List<FileMapping> _mappings = [];

    public IReadOnlyList<FileMapping> Items => _mappings;

    /// <summary>
    /// Maps each target; a target that cannot be mapped is reported and left out, as is each target past the room
    /// under vm.max_map_count (each file is a mapping, and past the limit the runtime aborts the process).
    /// </summary>
    public static FileMappings Open(Commands.CliContext context, IReadOnlyList<FileTarget> targets)
    {
        int next = 0;
        return Open(context, targets, ref next, batch: false);
    }

    /// <summary>
    /// Maps the targets from <paramref name="next"/> on, as many as the room under vm.max_map_count holds, and moves
    /// <paramref name="next"/> past them: a command that needs each file only for its sweep maps the rest once these
    /// are unmapped.
    /// </summary>
    public static FileMappings OpenBatch(Commands.CliContext context, IReadOnlyList<FileTarget> targets, ref int next) =>
        Open(context, targets, ref next, batch: true);

    private static FileMappings Open(Commands.CliContext context, IReadOnlyList<FileTarget> targets, ref int next, bool batch)
    {
        var mappings = new FileMappings();
        MappingRoom room = MappingRoom.Current();
        for (; next < targets.Count; next++)
        {
            FileTarget target = targets[next];
            if (!room.TryTake(1))
            {
                if (batch && mappings._mappings.Count > 0)
                {
                    break;
                }

                context.Fail(target.DisplayPath, room.Describe("not mapped"));
                continue;
            }

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
