using Sharpi.Prefault.Cli.Commands;

namespace Sharpi.Prefault.Cli.Files;

/// <summary>Turns FILE arguments into targets, reporting (and leaving out) each one that cannot be used.</summary>
internal static class Targets
{
    /// <param name="context">Where failures go.</param>
    /// <param name="paths">The FILE arguments.</param>
    /// <param name="filter">The --tensor/--exclude patterns; when it names tensors, every file must be a model.</param>
    /// <param name="readModels">Read the tensor table of model files even when no tensors are named (resident, tensors).</param>
    /// <param name="recursive">-r: a directory stands for the regular files under it; without it a directory is an error.</param>
    /// <param name="beforeRead">Called with each regular file before anything is read from it (resident's head snapshot).</param>
    public static List<FileTarget> Resolve(
        CliContext context, IReadOnlyList<string> paths, TensorFilter filter, bool readModels, bool recursive = false, Action<string>? beforeRead = null)
    {
        var targets = new List<FileTarget>(paths.Count);
        var seen = new HashSet<string>(StringComparer.Ordinal);
        TensorSelection selection = filter.ToSelection();
        foreach (string path in paths)
        {
            PathKind kind = PathKinds.Of(path);
            if (kind == PathKind.Directory && recursive)
            {
                foreach (string file in FilesUnder(context, path, filter))
                {
                    beforeRead?.Invoke(file);
                    ResolveChecked(context, file, filter, selection, readModels, targets, seen);
                }

                continue;
            }

            if (PathKinds.Refusal(kind) is string refusal)
            {
                context.Fail(path, refusal);
                continue;
            }

            beforeRead?.Invoke(path);
            ResolveChecked(context, path, filter, selection, readModels, targets, seen);
        }

        CheckPatternsMatch(context, targets, filter);
        return targets;
    }

    private static void ResolveChecked(
        CliContext context, string path, TensorFilter filter, TensorSelection selection, bool readModels, List<FileTarget> targets, HashSet<string> seen)
    {
        try
        {
            ResolveOne(context, path, filter, selection, readModels, targets, seen);
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            context.Fail(path, FileErrors.Describe(e));
        }
    }

    /// <summary>
    /// The regular files under a directory, sorted so runs repeat; FIFOs, sockets and devices are skipped (noted), and
    /// with --tensor only the model files are taken (config.json beside the weights is not an error). A sharded
    /// model's shards come once, whether through the index or found themselves.
    /// </summary>
    private static List<string> FilesUnder(CliContext context, string directory, TensorFilter filter)
    {
        var options = new EnumerationOptions { RecurseSubdirectories = true, IgnoreInaccessible = true, AttributesToSkip = 0 };
        var files = new List<string>();
        foreach (string file in Directory.EnumerateFiles(directory, "*", options))
        {
            PathKind kind = PathKinds.Of(file);
            if (kind != PathKind.Regular)
            {
                if (kind != PathKind.Missing && kind != PathKind.Directory)
                {
                    context.Note(file, "skipped: " + PathKinds.Refusal(kind));
                }

                continue;
            }

            if (filter.NamesTensors && !ModelFiles.LooksLikeModel(file))
            {
                continue;
            }

            files.Add(file);
        }

        files.Sort(StringComparer.Ordinal);
        if (files.Count == 0)
        {
            context.Fail(directory, filter.NamesTensors ? "has no model files." : "has no regular files.");
        }

        // Indexes first, so their shards are taken as the model's (with tensors) rather than as lone files.
        files.Sort((a, b) => ModelFiles.IsShardIndex(b).CompareTo(ModelFiles.IsShardIndex(a)));
        return files;
    }

    /// <summary>A --tensor pattern that selects nothing in any model is a mistake worth naming (a typo, a format's other naming).</summary>
    private static void CheckPatternsMatch(CliContext context, List<FileTarget> targets, TensorFilter filter)
    {
        if (filter.Include.Length == 0)
        {
            return;
        }

        var indexes = targets.Where(t => t.Index is not null).Select(t => t.Index!).Distinct().ToList();
        if (indexes.Count == 0)
        {
            return;
        }

        foreach (string pattern in filter.Include)
        {
            var one = new TensorSelection([pattern]);
            if (!indexes.Any(index => index.Tensors.Any(t => one.Matches(t.Name))))
            {
                context.Fail($"--tensor '{pattern}'", $"matches no tensor in {string.Join(", ", targets.Select(t => t.DisplayPath).Distinct())}.");
            }
        }
    }

    private static void ResolveOne(
        CliContext context, string path, TensorFilter filter, TensorSelection selection, bool readModels, List<FileTarget> targets, HashSet<string> seen)
    {
        bool looksLikeModel = ModelFiles.LooksLikeModel(path);
        if (filter.NamesTensors && !looksLikeModel)
        {
            context.Fail(path, "not a GGUF or safetensors model; --tensor and --exclude select tensors of model files only.");
            return;
        }

        // A shard index always resolves to its shards: touching, evicting or locking the small JSON file itself would
        // do nothing useful, and say it had.
        if (looksLikeModel && (readModels || filter.NamesTensors || ModelFiles.IsShardIndex(path)))
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
                Add(targets, seen, Plain(path));
                return;
            }

            if (index.Files.Count == 0)
            {
                context.Fail(path, "lists no tensors (an empty weight_map): no model to work on.");
                return;
            }

            foreach (string file in index.Files)
            {
                string display = index.Files.Count == 1 && !ModelFiles.IsShardIndex(path)
                    ? path
                    : Path.Combine(Path.GetDirectoryName(path) ?? string.Empty, Path.GetFileName(file));
                var tensors = new List<TensorInfo>();
                foreach (TensorInfo tensor in index.Select(selection))
                {
                    if (tensor.FilePath == file)
                    {
                        tensors.Add(tensor);
                    }
                }

                Add(targets, seen, new FileTarget(display, file, new FileInfo(file).Length, index, selection, tensors));
            }

            return;
        }

        Add(targets, seen, Plain(path));
    }

    private static void Add(List<FileTarget> targets, HashSet<string> seen, FileTarget target)
    {
        // The same file named twice (or a shard found beside its index under -r) is worked on once.
        if (seen.Add(target.FullPath))
        {
            targets.Add(target);
        }
    }

    private static FileTarget Plain(string path) =>
        new(path, Path.GetFullPath(path), new FileInfo(path).Length, null, TensorSelection.All, null);
}
