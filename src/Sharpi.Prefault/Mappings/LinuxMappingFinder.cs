namespace Sharpi.Prefault;

/// <summary>Finds mappings in /proc/self/maps by device and inode, whatever path mapped them.</summary>
[SupportedOSPlatform("linux")]
internal static class LinuxMappingFinder
{
    /// <inheritdoc cref="MappingFinder.Find"/>
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
            foreach (int file in candidates)
            {
                if (files[file] == mapped || (!entry.IsDeleted && MappingFinder.IdentityOfPath(entry.Path, pathIdentities) == files[file]))
                {
                    MappingFinder.AddMerged(found[file], new MappedRange(entry.Start, entry.End, file, entry.Offset));
                }
            }
        }

        return found;
    }
}
