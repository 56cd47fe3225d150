using System.Runtime.Versioning;

namespace Sharpi.Prefault;

/// <summary>
/// Finds a file's mappings in /proc/self/maps by the device and inode each line names (the file mapped, whatever path
/// it was mapped through).
/// </summary>
[SupportedOSPlatform("linux")]
internal static class LinuxMappingFinder
{
    /// <summary>The readable mappings of each file, in address order, pieces of one mapping merged.</summary>
    internal static List<MappedRange>[] Find(FileIdentity[] files)
    {
        Dictionary<ulong, List<int>> byInode = MappingFinder.Group(files, static f => f.Index, out List<MappedRange>[] found);
        var pathIdentities = new Dictionary<string, FileIdentity?>(StringComparer.Ordinal);
        foreach (ProcMapEntry entry in ProcMaps.ReadSelf())
        {
            if (entry.Inode == 0 || !entry.Readable || !byInode.TryGetValue((ulong)entry.Inode, out List<int>? candidates))
            {
                continue;
            }

            var mapped = new FileIdentity(entry.Device, (ulong)entry.Inode);
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
}
