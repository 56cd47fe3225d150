using System.Buffers;
using System.Buffers.Text;
using System.Globalization;
using System.Text;

namespace Sharpi.Prefault;

/// <summary>One line of /proc/self/maps.</summary>
internal readonly record struct ProcMapEntry(nint Start, nint End, bool Readable, bool Writable, bool Shared, long Offset, long Inode, string Path, ulong Device = 0)
    : IAddressRange
{
    /// <summary>A mapping of a file (as opposed to anonymous memory, the heap, stacks or [vdso]-style pseudo files).</summary>
    internal bool IsFileBacked => Inode != 0 && Path.StartsWith('/');

    /// <summary>The file was unlinked after it was mapped; the path no longer names it.</summary>
    internal bool IsDeleted => Path.EndsWith(" (deleted)", StringComparison.Ordinal);
}

/// <summary>
/// Reads /proc/self/maps (Linux): which address ranges are mapped, with what permissions, backed by which file at which
/// offset.
/// </summary>
internal static partial class ProcMaps
{
    internal const string SelfMapsPath = "/proc/self/maps";

    /// <summary>
    /// The mappings under <paramref name="regions"/> (Linux; empty elsewhere or when /proc is not readable): the one
    /// snapshot a run shares between its residency count and its touch-safety check.
    /// </summary>
    internal static ProcMapEntry[] ReadFor(MergedRegion[] regions) =>
        OperatingSystem.IsLinux() && regions.Length > 0 ? ReadSelf(RegionSet.Lowest(regions), RegionSet.Highest(regions)) : [];

    /// <summary>This process's mappings, sorted by address. Empty when /proc is not readable.</summary>
    internal static ProcMapEntry[] ReadSelf() => ReadSelf(0, -1);

    /// <summary>
    /// This process's mappings that overlap [<paramref name="low"/>, <paramref name="high"/>) (unsigned), sorted by
    /// address.
    /// </summary>
    internal static ProcMapEntry[] ReadSelf(nint low, nint high)
    {
        if (!OperatingSystem.IsLinux())
        {
            return [];
        }

        byte[] buffer = ArrayPool<byte>.Shared.Rent(64 * 1024);
        try
        {
            int length = KernelFile.TryReadAll(SelfMapsPath, ref buffer);
            if (length < 0)
            {
                return [];
            }

            var entries = new ArrayBuilder<ProcMapEntry>();
            ReadOnlySpan<byte> text = buffer.AsSpan(0, length);
            while (!text.IsEmpty)
            {
                int newline = text.IndexOf((byte)'\n');
                ReadOnlySpan<byte> line = newline < 0 ? text : text[..newline];
                text = newline < 0 ? default : text[(newline + 1)..];
                if (Overlaps(line, low, high) && TryParseLine(Encoding.UTF8.GetString(line), out ProcMapEntry entry))
                {
                    entries.Add(entry);
                }
            }

            return entries.ToArray();
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <summary>Whether a maps line's "start-end" range overlaps [low, high), read without allocating.</summary>
    private static bool Overlaps(ReadOnlySpan<byte> line, nint low, nint high)
    {
        int dash = line.IndexOf((byte)'-');
        int space = line.IndexOf((byte)' ');
        return dash > 0 && space > dash
            && Utf8Parser.TryParse(line[..dash], out ulong start, out _, 'x')
            && Utf8Parser.TryParse(line[(dash + 1)..space], out ulong end, out _, 'x')
            && end > (ulong)low && start < (ulong)high;
    }

    internal static ProcMapEntry[] Parse(string text)
    {
        var entries = new ArrayBuilder<ProcMapEntry>();
        foreach (string line in text.Split('\n'))
        {
            if (TryParseLine(line, out ProcMapEntry entry))
            {
                entries.Add(entry);
            }
        }

        return entries.ToArray();
    }

    /// <summary>
    /// The path field as the file's name: the kernel writes a newline in a name as "\012" and escapes nothing else, so
    /// a name holding those four characters reads the same.
    /// </summary>
    private static string UnescapePath(ReadOnlySpan<char> path, long inode)
    {
        string raw = path.ToString();
        if (!raw.Contains(@"\012", StringComparison.Ordinal) || inode == 0)
        {
            return raw;
        }

        string unescaped = raw.Replace(@"\012", "\n", StringComparison.Ordinal);
        return FileStatus.TryOf(unescaped) is { } status && status.Inode == (ulong)inode ? unescaped : raw;
    }

    // "7f12a000-7f12b000 r--s 00001000 fd:01 1234567                    /path/to/file with spaces"
    private static bool TryParseLine(ReadOnlySpan<char> line, out ProcMapEntry entry)
    {
        entry = default;
        Span<Range> fields = stackalloc Range[6];
        int count = line.Split(fields, ' ', StringSplitOptions.RemoveEmptyEntries);
        if (count < 5)
        {
            return false;
        }

        ReadOnlySpan<char> range = line[fields[0]];
        int dash = range.IndexOf('-');
        ReadOnlySpan<char> perms = line[fields[1]];
        if (dash <= 0 || perms.Length < 4
            || !ulong.TryParse(range[..dash], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out ulong start)
            || !ulong.TryParse(range[(dash + 1)..], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out ulong end)
            || !long.TryParse(line[fields[2]], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out long offset)
            || !long.TryParse(line[fields[4]], NumberStyles.None, CultureInfo.InvariantCulture, out long inode))
        {
            return false;
        }

        // The device is "major:minor" in hex; packed as FileStatus packs statx's (major in the high 32 bits).
        ReadOnlySpan<char> dev = line[fields[3]];
        int colon = dev.IndexOf(':');
        ulong device = colon > 0
            && uint.TryParse(dev[..colon], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out uint major)
            && uint.TryParse(dev[(colon + 1)..], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out uint minor)
            ? ((ulong)major << 32) | minor
            : 0;

        // The path is everything after the inode field, spaces included (a name may end in one), with the one escape
        // the kernel writes undone where that names the mapped file (see UnescapePath).
        string path = count >= 6 ? UnescapePath(line[fields[5].Start..], inode) : string.Empty;
        entry = new ProcMapEntry((nint)start, (nint)end, perms[0] == 'r', perms[1] == 'w', perms[3] == 's', offset, inode, path, device);
        return true;
    }
}
