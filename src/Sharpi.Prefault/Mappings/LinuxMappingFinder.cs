using System.Globalization;
using System.Runtime.Versioning;

namespace Sharpi.Prefault;

/// <summary>
/// Finds a file's mappings in /proc/self/maps by the device and inode each line names (the file mapped, whatever
/// path it was mapped through). Where the device differs (overlayfs reports the underlying file's device in the
/// maps but its own in stat), a line whose inode matches is taken when its path stats to the same file.
/// </summary>
[SupportedOSPlatform("linux")]
internal static class LinuxMappingFinder
{
    /// <summary>The readable mappings of each file, in address order, pieces of one mapping merged.</summary>
    internal static List<MappedRange>[] Find(FileIdentity[] files)
    {
        var found = new List<MappedRange>[files.Length];
        var byInode = new Dictionary<ulong, List<int>>();
        for (int i = 0; i < files.Length; i++)
        {
            found[i] = [];
            if (!byInode.TryGetValue(files[i].Index, out List<int>? same))
            {
                byInode[files[i].Index] = same = [];
            }

            same.Add(i);
        }

        string text;
        try
        {
            text = File.ReadAllText(ProcMaps.SelfMapsPath);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return found;
        }

        var pathIdentities = new Dictionary<string, FileIdentity?>(StringComparer.Ordinal);
        foreach (ReadOnlySpan<char> line in text.AsSpan().EnumerateLines())
        {
            if (!TryReadIdentity(line, out FileIdentity mapped) || !byInode.TryGetValue(mapped.Index, out List<int>? candidates))
            {
                continue;
            }

            ProcMapEntry[] parsed = ProcMaps.Parse(line.ToString());
            if (parsed.Length != 1 || !parsed[0].Readable)
            {
                continue;
            }

            ProcMapEntry entry = parsed[0];
            var range = new MappedRange(entry.Start, entry.End, entry.Offset);
            foreach (int file in candidates)
            {
                if (files[file] == mapped || (!entry.IsDeleted && MappingFinder.IdentityOfPath(entry.Path, pathIdentities) == files[file]))
                {
                    MappingFinder.AddMerged(found[file], range);
                }
            }
        }

        return found;
    }

    // "7f12a000-7f12b000 r--s 00001000 fd:01 1234567    /path": the device (major:minor, hex) and inode (decimal).
    private static bool TryReadIdentity(ReadOnlySpan<char> line, out FileIdentity identity)
    {
        identity = default;
        Span<Range> fields = stackalloc Range[6];
        int count = line.Split(fields, ' ', StringSplitOptions.RemoveEmptyEntries);
        if (count < 5)
        {
            return false;
        }

        ReadOnlySpan<char> device = line[fields[3]];
        int colon = device.IndexOf(':');
        if (colon <= 0
            || !uint.TryParse(device[..colon], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out uint major)
            || !uint.TryParse(device[(colon + 1)..], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out uint minor)
            || !ulong.TryParse(line[fields[4]], NumberStyles.None, CultureInfo.InvariantCulture, out ulong inode)
            || inode == 0)
        {
            return false;
        }

        identity = new FileIdentity(((ulong)major << 32) | minor, inode);
        return true;
    }
}
