using System.Text;

namespace Sharpi.Prefault;

/// <summary>Mappings overlapping some ranges, sorted; hugetlb flags index for index; whether PROCMAP_QUERY answered.</summary>
internal sealed record MappingSnapshot(ProcMapEntry[] Entries, bool[] IsHugetlb, bool FromQuery)
{
    internal static readonly MappingSnapshot Empty = new([], [], false);
}

/// <summary>
/// Looks up the mappings under a few ranges at their cost, not the whole process's: PROCMAP_QUERY (Linux 6.11+), else
/// one read of /proc/self/maps.
/// </summary>
[SupportedOSPlatform("linux")]
internal static class MappingQuery
{
    /// <summary>The mappings overlapping <paramref name="ranges"/>, sorted; empty when /proc is unreadable.</summary>
    internal static MappingSnapshot Read(MergedRegion[] ranges, bool useQuery = true)
    {
        if (ranges.Length == 0)
        {
            return MappingSnapshot.Empty;
        }

        SafeFileHandle? maps = OpenSelfMaps();
        if (maps is null)
        {
            return MappingSnapshot.Empty;
        }

        using (maps)
        {
            if (useQuery && TryQuery(maps, ranges) is MappingSnapshot queried)
            {
                return queried;
            }
        }

        ProcMapEntry[] entries = ProcMaps.ReadSelf(RegionSet.Lowest(ranges), RegionSet.Highest(ranges));
        return new MappingSnapshot(entries, HugetlbByFileSystem(entries), FromQuery: false);
    }

    internal static unsafe bool IsQuerySupported
    {
        get
        {
            using SafeFileHandle? maps = OpenSelfMaps();
            if (maps is null)
            {
                return false;
            }

            Interop.Libc.ProcmapQuery q = default;
            q.Size = (ulong)sizeof(Interop.Libc.ProcmapQuery);
            q.QueryFlags = Interop.Libc.PROCMAP_QUERY_COVERING_OR_NEXT_VMA;
            return Interop.Libc.IoctlProcmapQuery(maps, Interop.Libc.PROCMAP_QUERY, &q) == 0
                || Marshal.GetLastPInvokeError() == Interop.LinuxConstants.ENOENT;
        }
    }

    /// <summary>Every mapping under the ranges, one ioctl per mapping; null where the kernel has no PROCMAP_QUERY.</summary>
    private static unsafe MappingSnapshot? TryQuery(SafeFileHandle maps, MergedRegion[] ranges)
    {
        var entries = new List<ProcMapEntry>();
        var hugetlb = new List<bool>();
        byte* name = stackalloc byte[4096];
        nuint pageSize = (nuint)Environment.SystemPageSize;
        foreach (MergedRegion r in ranges)
        {
            nuint at = (nuint)r.Start;
            if (entries.Count > 0 && (nuint)entries[^1].End > at)
            {
                at = (nuint)entries[^1].End;
            }

            while (at < (nuint)r.End)
            {
                Interop.Libc.ProcmapQuery q = default;
                q.Size = (ulong)sizeof(Interop.Libc.ProcmapQuery);
                q.QueryFlags = Interop.Libc.PROCMAP_QUERY_COVERING_OR_NEXT_VMA;
                q.QueryAddress = at;
                q.VmaNameAddress = (ulong)name;
                q.VmaNameSize = 4096;
                if (Interop.Libc.IoctlProcmapQuery(maps, Interop.Libc.PROCMAP_QUERY, &q) != 0)
                {
                    int errno = Marshal.GetLastPInvokeError();
                    if (errno == Interop.LinuxConstants.ENOENT)
                    {
                        break; // nothing mapped at or above `at`
                    }

                    return null; // ENOTTY/EINVAL: before 6.11; otherwise the maps walk answers
                }

                if ((nuint)q.VmaStart >= (nuint)r.End)
                {
                    break;
                }

                string path = q.VmaNameSize > 1 ? Encoding.UTF8.GetString(name, (int)q.VmaNameSize - 1) : string.Empty;
                entries.Add(new ProcMapEntry(
                    (nint)q.VmaStart,
                    (nint)q.VmaEnd,
                    Readable: (q.VmaFlags & Interop.Libc.PROCMAP_QUERY_VMA_READABLE) != 0,
                    Writable: (q.VmaFlags & Interop.Libc.PROCMAP_QUERY_VMA_WRITABLE) != 0,
                    Shared: (q.VmaFlags & Interop.Libc.PROCMAP_QUERY_VMA_SHARED) != 0,
                    (long)q.VmaOffset,
                    (long)q.Inode,
                    path,
                    ((ulong)q.DevMajor << 32) | q.DevMinor));
                hugetlb.Add(q.VmaPageSize != 0 && q.VmaPageSize != pageSize);
                at = (nuint)q.VmaEnd;
            }
        }

        return new MappingSnapshot([.. entries], [.. hugetlb], FromQuery: true);
    }

    private static SafeFileHandle? OpenSelfMaps()
    {
        try
        {
            return File.OpenHandle(ProcMaps.SelfMapsPath, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
        }
        catch (IOException)
        {
            return null;
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>A file mapping is hugetlb where its file is on hugetlbfs (fstatfs, once per path).</summary>
    private static unsafe bool[] HugetlbByFileSystem(ProcMapEntry[] entries)
    {
        bool[] hugetlb = new bool[entries.Length];
        var known = new Dictionary<string, bool>(StringComparer.Ordinal);
        for (int i = 0; i < entries.Length; i++)
        {
            string path = entries[i].Path;
            if (!entries[i].IsFileBacked)
            {
                continue;
            }

            if (!known.TryGetValue(path, out bool isHugetlb))
            {
                isHugetlb = true;
                try
                {
                    using SafeFileHandle file = FileOpener.OpenRead(path, allowDevices: true);
                    Interop.Libc.StatfsBuffer fs = default;
                    isHugetlb = Interop.Libc.Fstatfs(file, &fs) != 0 || fs.Type == Interop.LinuxConstants.HUGETLBFS_MAGIC;
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException)
                {
                }

                known[path] = isHugetlb;
            }

            hugetlb[i] = isHugetlb;
        }

        return hugetlb;
    }
}
