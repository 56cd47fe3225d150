using Sharpi.Prefault.Cli.Commands;

namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// One file a command works on: a plain file (whole), or one file of a model with its selected tensors.
/// A sharded model's index resolves to one target per shard.
/// </summary>
/// <param name="DisplayPath">The path as the user wrote it (a shard: beside the index the user named).</param>
/// <param name="FullPath">The absolute path.</param>
/// <param name="Length">The file's length in bytes.</param>
/// <param name="Index">The model's tensor index; null for a plain file.</param>
/// <param name="Selection">The tensors the command line selected (all when it named none).</param>
/// <param name="Tensors">The selected tensors in this file, in file order; null for a plain file.</param>
internal sealed record FileTarget(string DisplayPath, string FullPath, long Length, TensorIndex? Index, TensorSelection Selection, IReadOnlyList<TensorInfo>? Tensors)
{
    public bool IsModel => Tensors is not null;

    /// <summary>True when only some tensors are wanted, so the command works on their ranges rather than the whole file.</summary>
    public bool UsesTensorRanges(TensorFilter filter) => IsModel && filter.NamesTensors;

    /// <summary>The selected tensors' byte ranges in this file, touching tensors merged.</summary>
    public IEnumerable<FileByteRange> TensorRanges()
    {
        if (Index is null)
        {
            yield break;
        }

        foreach (FileByteRange range in Index.Ranges(Selection))
        {
            if (range.FilePath == FullPath)
            {
                yield return range;
            }
        }
    }
}

/// <summary>Turns FILE arguments into targets, reporting (and leaving out) each one that cannot be used.</summary>
internal static class Targets
{
    /// <param name="context">Where failures go.</param>
    /// <param name="paths">The FILE arguments.</param>
    /// <param name="filter">The --tensor/--exclude patterns; when it names tensors, every file must be a model.</param>
    /// <param name="readModels">Read the tensor table of model files even when no tensors are named (resident, tensors).</param>
    public static List<FileTarget> Resolve(CliContext context, IReadOnlyList<string> paths, TensorFilter filter, bool readModels)
    {
        var targets = new List<FileTarget>(paths.Count);
        TensorSelection selection = filter.ToSelection();
        foreach (string path in paths)
        {
            try
            {
                ResolveOne(context, path, filter, selection, readModels, targets);
            }
            catch (Exception e) when (FileErrors.IsExpected(e))
            {
                context.Fail(path, FileErrors.Describe(e));
            }
        }

        return targets;
    }

    private static void ResolveOne(CliContext context, string path, TensorFilter filter, TensorSelection selection, bool readModels, List<FileTarget> targets)
    {
        if (Directory.Exists(path))
        {
            context.Fail(path, "is a directory; name the files in it.");
            return;
        }

        if (!File.Exists(path))
        {
            context.Fail(path, "no such file.");
            return;
        }

        bool looksLikeModel = ModelFiles.LooksLikeModel(path);
        if (filter.NamesTensors && !looksLikeModel)
        {
            context.Fail(path, "not a GGUF or safetensors model; --tensor and --exclude select tensors of model files only.");
            return;
        }

        if (looksLikeModel && (readModels || filter.NamesTensors))
        {
            TensorIndex index;
            try
            {
                index = TensorIndex.Read(path);
            }
            catch (ModelFormatException e) when (!filter.NamesTensors && !ModelFiles.HasModelExtension(path))
            {
                // A plain file that merely starts like a model: work on it whole, and say why it is not a model.
                context.Note(path, $"read as a plain file ({e.Message})");
                targets.Add(Plain(path));
                return;
            }

            foreach (string file in index.Files)
            {
                string display = index.Files.Count == 1 ? path : Path.Combine(Path.GetDirectoryName(path) ?? string.Empty, Path.GetFileName(file));
                var tensors = new List<TensorInfo>();
                foreach (TensorInfo tensor in index.Select(selection))
                {
                    if (tensor.FilePath == file)
                    {
                        tensors.Add(tensor);
                    }
                }

                targets.Add(new FileTarget(display, file, new FileInfo(file).Length, index, selection, tensors));
            }

            return;
        }

        targets.Add(Plain(path));
    }

    private static FileTarget Plain(string path) =>
        new(path, Path.GetFullPath(path), new FileInfo(path).Length, null, TensorSelection.All, null);
}
