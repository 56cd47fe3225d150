namespace Sharpi.Prefault;

/// <summary>Finds the address ranges mapping given files, from the OS's view of this process.</summary>
internal static class MappingFinder
{
    internal static bool IsSupported => OperatingSystem.IsLinux() || OperatingSystem.IsMacOS() || OperatingSystem.IsWindows();

    /// <summary>A regular file's identity (Windows: read through a handle).</summary>
    internal static FileIdentity IdentityOf(string fullPath, FileStatus status)
    {
        if (OperatingSystem.IsWindows())
        {
            using SafeFileHandle handle = FileOpener.OpenRead(fullPath);
            return WindowsMappingFinder.IdentityOf(handle) ?? default;
        }

        return new FileIdentity(status.Device, status.Inode);
    }

    /// <summary>The readable mappings of each file, in address order, a mapping's pieces merged.</summary>
    internal static List<MappedRange>[] Find(FileIdentity[] files)
    {
        if (OperatingSystem.IsLinux())
        {
            return LinuxMappingFinder.Find(files);
        }

        if (OperatingSystem.IsMacOS())
        {
            return MacMappingFinder.Find(files);
        }

        if (OperatingSystem.IsWindows())
        {
            return WindowsMappingFinder.Find(files);
        }

        throw new PlatformNotSupportedException("Finding a file's mappings needs Linux (/proc/self/maps), macOS (mach_vm_region) or Windows (VirtualQuery).");
    }

    /// <summary>An empty list per file, and file indexes grouped by <paramref name="key"/> (a file may repeat).</summary>
    internal static Dictionary<TKey, List<int>> Group<TKey>(FileIdentity[] files, Func<FileIdentity, TKey> key, out List<MappedRange>[] found)
        where TKey : notnull
    {
        found = new List<MappedRange>[files.Length];
        var groups = new Dictionary<TKey, List<int>>();
        for (int i = 0; i < files.Length; i++)
        {
            found[i] = [];
            if (!groups.TryGetValue(key(files[i]), out List<int>? same))
            {
                groups[key(files[i])] = same = [];
            }

            same.Add(i);
        }

        return groups;
    }

    /// <summary>Appends a range, merged into the last one it continues.</summary>
    internal static void AddMerged(List<MappedRange> ranges, MappedRange range)
    {
        if (ranges.Count > 0 && ranges[^1].IsContinuedBy(range))
        {
            ranges[^1] = ranges[^1] with { End = range.End };
        }
        else
        {
            ranges.Add(range);
        }
    }

    /// <summary>The identity of the file at a path now, cached; null when unreadable.</summary>
    internal static FileIdentity? IdentityOfPath(string path, Dictionary<string, FileIdentity?> cache)
    {
        if (!cache.TryGetValue(path, out FileIdentity? identity))
        {
            identity = FileStatus.TryOf(path) is { HasIdentity: true } status ? new FileIdentity(status.Device, status.Inode) : null;
            cache[path] = identity;
        }

        return identity;
    }
}
