using System.Buffers;
using System.Buffers.Text;
using System.Globalization;
using System.Text;

namespace Sharpi.Prefault;

/// <summary>One line of /proc/self/maps.</summary>
internal readonly record struct ProcMapEntry(nint Start, nint End, bool Readable, bool Writable, bool Shared, long Offset, long Inode, string Path, ulong Device = 0)
    : IAddressRange
{
    /// <summary>A file, not anonymous memory or a pseudo file such as [vdso].</summary>
    internal bool IsFileBacked => Inode != 0 && Path.StartsWith('/');

    /// <summary>Unlinked after it was mapped.</summary>
    internal bool IsDeleted => Path.EndsWith(" (deleted)", StringComparison.Ordinal);
}

/// <summary>Reads /proc/self/maps (Linux).</summary>
internal static partial class ProcMaps
{
    internal const string SelfMapsPath = "/proc/self/maps";

    /// <summary>The mappings under <paramref name="regions"/> (empty without /proc): one snapshot for a run.</summary>
    internal static ProcMapEntry[] ReadFor(MergedRegion[] regions) =>
        OperatingSystem.IsLinux() && regions.Length > 0 ? ReadSelf(RegionSet.Lowest(regions), RegionSet.Highest(regions)) : [];

    /// <summary>Sorted; empty when /proc is unreadable.</summary>
    internal static ProcMapEntry[] ReadSelf() => ReadSelf(0, -1);

    /// <summary>The mappings overlapping [<paramref name="low"/>, <paramref name="high"/>) (unsigned), sorted.</summary>
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

    /// <summary>Whether a line's range overlaps [low, high), allocating nothing.</summary>
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

    /// <summary>The path field as a file name (the kernel escapes only a newline, as "\012").</summary>
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

        // "major:minor" in hex, packed as FileStatus packs it.
        ReadOnlySpan<char> dev = line[fields[3]];
        int colon = dev.IndexOf(':');
        ulong device = colon > 0
            && uint.TryParse(dev[..colon], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out uint major)
            && uint.TryParse(dev[(colon + 1)..], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out uint minor)
            ? ((ulong)major << 32) | minor
            : 0;

        // The rest of the line, spaces included, unescaped where that names the mapped file.
        string path = count >= 6 ? UnescapePath(line[fields[5].Start..], inode) : string.Empty;
        entry = new ProcMapEntry((nint)start, (nint)end, perms[0] == 'r', perms[1] == 'w', perms[3] == 's', offset, inode, path, device);
        return true;
    }
}
