using System.CommandLine;
using System.Globalization;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// <c>--read-ahead-kb 128,8192</c>: a command's whole table runs once per value, set on the disk that holds the file
/// and put back afterwards (see <see cref="SysfsOverride"/>), or once as the disk is where no value was given or the
/// bench may not set it.
/// </summary>
internal static class ReadAheadPasses
{
    internal static Option<string?> CreateOption() => new("--read-ahead-kb")
    {
        Description = "Comma-separated read_ahead_kb values, e.g. 128,8192: the whole table runs once per value, set on the file's disk " +
            "(needs root; the old value is restored at the end, on errors and on Ctrl+C/SIGTERM). Default: the current value, unchanged.",
    };

    /// <summary>The values asked for, in order, each once; empty when none was given.</summary>
    internal static int[] Parse(string? value) => CommaList.Parse(value, static item =>
        int.TryParse(item, NumberStyles.None, CultureInfo.InvariantCulture, out int kb)
            ? kb
            : throw new BenchException($"--read-ahead-kb: '{item}' is not a number of KiB; write for example 128,8192."));

    /// <summary>
    /// The passes to run, each value of <paramref name="readAheads"/> set on the disk of <paramref name="path"/> before
    /// it is yielded, or one pass of null (the disk as it is). Every value set is put back when the enumeration ends
    /// (a <c>foreach</c> left by an exception included), and the notes say so; to <paramref name="restoreTo"/> where
    /// given (a scratch loop device's value from before it was attached).
    /// </summary>
    [SupportedOSPlatform("linux")]
    internal static IEnumerable<int?> Each(string path, int[] readAheads, List<string> notes, ProgressLine progress, int? restoreTo = null)
    {
        if (readAheads.Length == 0)
        {
            yield return null;
            yield break;
        }

        BlockDevice device = BlockDevice.Of(path);
        using SysfsOverride? readAhead = SysfsOverride.TryCreate(device, out string? why, device.BdiReadAheadPath is null ? restoreTo : null);
        if (readAhead is null)
        {
            string message = $"--read-ahead-kb: not set: {why}. Ran once at the current read_ahead_kb ({device.ReadAheadKb?.ToString(CultureInfo.InvariantCulture) ?? "n/a"}).";
            progress.Note(message);
            notes.Add(message);
            yield return null;
            yield break;
        }

        foreach (int kb in readAheads)
        {
            progress.Note($"Setting read_ahead_kb of {device.ReadAheadOwner} to {kb} (--read-ahead-kb; it is {readAhead.Original} outside this run and is restored at the end).");
            readAhead.Set(kb);
            yield return kb;
        }

        readAhead.Dispose();
        string restored = $"read_ahead_kb of {device.ReadAheadOwner} restored to {readAhead.Original} after the runs at {string.Join(", ", readAheads)}.";
        progress.Note(restored);
        notes.Add(restored);
    }
}
