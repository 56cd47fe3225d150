using System.IO.MemoryMappedFiles;

namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// Which pages of a file's head were resident before the tool read its tensor table. The index reader reads the
/// header through a sequential-scan stream, and the kernel's read-ahead then pulls in the first tensor's pages:
/// <c>resident</c> would report bytes that only its own look brought in. It subtracts those pages instead.
/// </summary>
internal sealed class HeadSnapshot
{
    // Headers are kilobytes to a few MiB (a large vocabulary); read-ahead reaches at most a few hundred KiB past them.
    private const long HeadBytes = 32L << 20;

    private readonly bool[] _residentBefore;
    private readonly long _page = Environment.SystemPageSize;

    private HeadSnapshot(bool[] residentBefore) => _residentBefore = residentBefore;

    /// <summary>One mincore query per page of the head: a few thousand calls, milliseconds.</summary>
    public static HeadSnapshot? Take(string path)
    {
        if (!Residency.IsSupported || !File.Exists(path))
        {
            return null;
        }

        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1, FileOptions.None);
        long length = Math.Min(stream.Length, HeadBytes);
        if (length == 0)
        {
            return null;
        }

        using MemoryMappedFile map = MemoryMappedFile.CreateFromFile(stream, null, 0, MemoryMappedFileAccess.Read, HandleInheritability.None, leaveOpen: true);
        using MemoryMappedViewAccessor view = map.CreateViewAccessor(0, length, MemoryMappedFileAccess.Read);
        var snapshot = new HeadSnapshot(new bool[(length + Environment.SystemPageSize - 1) / Environment.SystemPageSize]);
        snapshot.Fill((offset, bytes) => Residency.Measure(PrefaultRegion.FromView(view, offset, bytes)).ResidentBytes > 0, length);
        return snapshot;
    }

    /// <summary>
    /// Bytes of [offset, offset + length) on head pages that were not resident before and are now: what reading the
    /// header brought in. <paramref name="isResident"/> answers for (offset, bytes) of the file now.
    /// </summary>
    public long PulledIn(long offset, long length, Func<long, long, bool> isResident)
    {
        long end = Math.Min(offset + length, _residentBefore.Length * _page);
        long bytes = 0;
        for (long page = offset / _page; page * _page < end; page++)
        {
            if (_residentBefore[page])
            {
                continue;
            }

            long start = Math.Max(offset, page * _page);
            long stop = Math.Min(end, (page + 1) * _page);
            if (stop > start && isResident(start, stop - start))
            {
                bytes += stop - start;
            }
        }

        return bytes;
    }

    private void Fill(Func<long, long, bool> isResident, long length)
    {
        for (long page = 0; page < _residentBefore.Length; page++)
        {
            long start = page * _page;
            _residentBefore[page] = isResident(start, Math.Min(_page, length - start));
        }
    }
}
