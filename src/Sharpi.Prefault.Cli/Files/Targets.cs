using System.IO.Enumeration;
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
    /// <param name="beforeRead">Called with each regular file before anything is read from it (resident's snapshot).</param>
    /// <param name="requireModels">
    /// Every file must be a readable model (tensors): a model file whose header cannot be read is an error. Otherwise, with
    /// no tensors named, it is worked on as a plain file with a note saying why.
    /// </param>
    public static List<FileTarget> Resolve(
        CliContext context, IReadOnlyList<string> paths, TensorFilter filter, bool readModels, bool recursive = false, Action<string>? beforeRead = null,
        bool requireModels = false)
    {
        var targets = new List<FileTarget>(paths.Count);
        var seen = new HashSet<string>(StringComparer.Ordinal);
        TensorSelection selection = filter.ToSelection();
        foreach (string path in paths)
        {
            if (CommandLineBytes.WasNotUtf8(path))
            {
                context.Fail(path, PathCheck.NotUtf8Message); // its text may name another file: never work on that one
                continue;
            }

            PathCheck check = PathCheck.Of(path);
            if (check.Kind == FileKind.Directory && recursive)
            {
                foreach (string file in FilesUnder(context, path, filter))
                {
                    beforeRead?.Invoke(file);
                    ResolveChecked(context, file, filter, selection, readModels, requireModels, targets, seen);
                }

                continue;
            }

            if (check.Refusal is string refusal)
            {
                context.Fail(path, refusal);
                continue;
            }

            beforeRead?.Invoke(path);
            ResolveChecked(context, path, filter, selection, readModels, requireModels, targets, seen);
        }

        CheckPatternsMatch(context, targets, filter);
        return targets;
    }

    private static void ResolveChecked(
        CliContext context, string path, TensorFilter filter, TensorSelection selection, bool readModels, bool requireModels, List<FileTarget> targets, HashSet<string> seen)
    {
        try
        {
            ResolveOne(context, path, filter, selection, readModels, requireModels, targets, seen);
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            context.Fail(path, FileErrors.Describe(e, path));
        }
    }

    /// <summary>
    /// The regular files under a directory, sorted so runs repeat; FIFOs, sockets and devices are skipped (noted), and
    /// with --tensor only the model files are taken (config.json beside the weights is not an error).
    /// </summary>
    private static List<string> FilesUnder(CliContext context, string directory, TensorFilter filter)
    {
        var candidates = new Dictionary<(ulong Device, ulong Inode), (string Path, bool ViaLink)>();
        var unkeyed = new List<string>();
        var walked = new HashSet<(ulong Device, ulong Inode)>();
        if (FileStatus.Of(directory, followLinks: true, out _) is { Kind: FileKind.Directory, HasIdentity: true } root)
        {
            walked.Add(root.Identity);
        }

        // Real directories first, symlinked ones after: a tree's files are named by their real paths, and a link into
        // the tree finds its target walked already.
        var real = new Queue<string>([directory]);
        var linked = new Queue<string>();
        while (real.Count > 0 || linked.Count > 0)
        {
            string current = real.Count > 0 ? real.Dequeue() : linked.Dequeue();
            foreach ((string entry, bool isLink) in Entries(context, current))
            {
                PathCheck check = PathCheck.Of(entry);
                (ulong Device, ulong Inode) key = check.Status.Identity;
                switch (check)
                {
                    case { IsUnusable: true }:
                        // A file (or directory) of the tree that cannot be used: named, and the run is partial, so a
                        // readiness probe never calls a tree warm while part of it went unmeasured.
                        context.Fail(entry, check.Refusal!);
                        break;
                    case { Kind: FileKind.Directory, Status.HasIdentity: false }:
                        if (isLink)
                        {
                            context.Note(entry, "skipped: a symlinked directory (followed only where files have inode numbers).");
                        }
                        else
                        {
                            real.Enqueue(entry);
                        }

                        break;
                    case { Kind: FileKind.Directory }:
                        if (walked.Add(key))
                        {
                            (isLink ? linked : real).Enqueue(entry);
                        }

                        break;
                    case { Kind: FileKind.Regular, Status.HasIdentity: false }:
                        unkeyed.Add(entry);
                        break;
                    case { Kind: FileKind.Regular }:
                        if (!candidates.TryGetValue(key, out (string Path, bool ViaLink) taken)
                            || (taken.ViaLink && !isLink)
                            || (taken.ViaLink == isLink && string.CompareOrdinal(entry, taken.Path) < 0))
                        {
                            candidates[key] = (entry, isLink);
                        }

                        break;
                    case { Kind: FileKind.Missing }:
                        break; // a dangling symlink, or gone since the listing
                    default:
                        context.Note(entry, "skipped: " + check.Refusal);
                        break;
                }
            }
        }

        var files = new List<string>(candidates.Count + unkeyed.Count);
        foreach (string file in candidates.Values.Select(c => c.Path).Concat(unkeyed))
        {
            if (!filter.NamesTensors || TensorFormats.IsModel(file))
            {
                files.Add(file);
            }
        }

        // Indexes first, so their shards are taken as the model's (with tensors) rather than as lone files; in path
        // order otherwise. One sort: List.Sort is not stable, so a second sort by index-ness could shuffle the paths.
        files.Sort((a, b) => TensorFormats.IsShardIndex(a) != TensorFormats.IsShardIndex(b)
            ? TensorFormats.IsShardIndex(b).CompareTo(TensorFormats.IsShardIndex(a))
            : string.CompareOrdinal(a, b));
        if (files.Count == 0)
        {
            context.Fail(directory, filter.NamesTensors ? "has no model files." : "has no regular files.");
        }

        return files;
    }

    /// <summary>
    /// The entries of one directory (not recursive), each with whether it is a symlink; a directory that cannot be listed
    /// (no read or search permission) is a failure naming it, never a silent gap in the tree.
    /// </summary>
    private static List<(string Path, bool IsLink)> Entries(CliContext context, string directory)
    {
        var options = new EnumerationOptions { RecurseSubdirectories = false, IgnoreInaccessible = false, AttributesToSkip = 0 };
        try
        {
            var entries = new FileSystemEnumerable<(string, bool)>(
                directory,
                (ref FileSystemEntry entry) => (entry.ToSpecifiedFullPath(), (entry.Attributes & FileAttributes.ReparsePoint) != 0),
                options);
            var distinct = new List<(string Path, bool IsLink)>();
            var texts = new HashSet<string>(StringComparer.Ordinal);
            foreach ((string path, bool isLink) in entries)
            {
                if (texts.Add(path))
                {
                    distinct.Add((path, isLink));
                }
                else
                {
                    // Two names of one directory read as one text: one of them was not UTF-8 (bad\xff.bin beside bad\uFFFD.bin),
                    // and its text opens the other file. Named, never merged into the other in silence.
                    context.Fail(path, PathCheck.NotUtf8Message);
                }
            }

            return distinct;
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            context.Fail(directory, "cannot be listed: " + FileErrors.Describe(e));
            return [];
        }
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
        CliContext context, string path, TensorFilter filter, TensorSelection selection, bool readModels, bool requireModels, List<FileTarget> targets, HashSet<string> seen)
    {
        bool looksLikeModel = TensorFormats.IsModel(path);
        if (filter.NamesTensors && !looksLikeModel)
        {
            context.Fail(path, "not a GGUF or safetensors model; --tensor and --exclude select tensors of model files only.");
            return;
        }

        // A shard index always resolves to its shards: touching, evicting or locking the small JSON file itself would
        // do nothing useful, and say it had.
        if (looksLikeModel && (readModels || filter.NamesTensors || TensorFormats.IsShardIndex(path)))
        {
            TensorIndex index;
            try
            {
                index = TensorIndex.Read(path);
            }
            catch (ModelFormatException e) when (!filter.NamesTensors && !requireModels && !TensorFormats.IsShardIndex(path))
            {
                // Working on a file's bytes does not need its header: a model file whose header cannot be read (or a
                // file that merely starts like one) is worked on whole, as touch, evict and lock (which read no header
                // unless tensors are named) do, and the note says why it shows no tensors.
                context.Note(path, $"read as a plain file ({FileErrors.Describe(e, path)})");
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
                string display = index.Files.Count == 1 && !TensorFormats.IsShardIndex(path)
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
