using System.Text.Json;

namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// The resident bytes of each whole file before anything was read from it, for <c>resident --min</c>: one residency
/// query per file (cachestat on the file where the kernel has it, Linux 6.5+; mincore through a fresh mapping
/// elsewhere), never refined page by page, so a probe costs the same on a half-evicted file as on a warm one.
/// </summary>
internal sealed class ResidentTotals
{
    private readonly Dictionary<string, (long Length, FileResidency Residency)> _before = new(StringComparer.Ordinal);

    /// <summary>Measures <paramref name="path"/> (and, for a shard index, its shards); files that cannot be read are skipped.</summary>
    public void Take(string path)
    {
        try
        {
            foreach (string file in TensorFormats.IsShardIndex(path) ? ResidencySnapshot.Shards(path) : [path])
            {
                TakeOne(file);
            }
        }
        catch (Exception e) when (FileErrors.IsExpected(e) || e is JsonException or ArgumentException)
        {
            // Resolving the target reports the problem in its own words; a file without a figure is measured when reported.
        }
    }

    /// <summary>The file's resident (and unknown) bytes as they were before it was read; measured now when none was taken (or its length changed).</summary>
    public FileResidency Of(FileTarget target) =>
        _before.TryGetValue(target.FullPath, out (long Length, FileResidency Residency) before) && before.Length == target.Length
            ? before.Residency
            : Measure(target);

    private void TakeOne(string path)
    {
        if (PathCheck.Of(path).Kind != FileKind.Regular)
        {
            return;
        }

        string full = Path.GetFullPath(path);
        if (!_before.ContainsKey(full))
        {
            var target = new FileTarget(path, full, new FileInfo(full).Length, null, TensorSelection.All, null);
            _before[full] = (target.Length, Measure(target));
        }
    }

    private static FileResidency Measure(FileTarget target)
    {
        if (target.Length == 0)
        {
            return default;
        }

        using FileMapping mapping = FileMapping.Open(target);
        ResidencyInfo info = Residency.Measure(mapping.Whole());
        return new FileResidency(info.ResidentBytes, info.UnknownBytes);
    }
}

/// <summary>A file's resident bytes, and those whose residency the kernel would not tell (<see cref="ResidencyInfo.UnknownBytes"/>).</summary>
internal readonly record struct FileResidency(long Resident, long Unknown);
