using System.Buffers;

namespace Sharpi.Prefault;

/// <summary>A run of pages mapped here, all also mapped elsewhere (<see cref="IsShared"/>) or all only here.</summary>
internal readonly record struct MappedRun(nint Start, nint End, bool IsShared)
{
    internal long Length => End - Start;
}


/// <summary>The pages this process maps, from /proc/self/pagemap (no privilege needed): what RSS counts.</summary>
internal sealed class ProcPagemap : IDisposable
{
    // Pages per read (entries from the shared pool).
    private const int PagesPerRead = 8 * 1024;
    private const ulong Present = 1UL << 63;
    private const ulong Exclusive = 1UL << 56;

    private SafeFileHandle? _pagemap;
    private bool _unavailable;

    /// <summary>The bytes of [start, end) on pages this process maps; false where pagemap cannot be read.</summary>
    internal bool TryCountPresent(nint start, nint end, out long presentBytes)
    {
        presentBytes = 0;
        if (end <= start)
        {
            return true;
        }

        if (Open() is not SafeFileHandle pagemap)
        {
            return false;
        }

        ulong[] entries = ArrayPool<ulong>.Shared.Rent(PagesPerRead);
        try
        {
            var batches = new PageBatches(start, end, PagesPerRead);
            while (batches.Next(out nint at, out int pages))
            {
                Span<byte> bytes = MemoryMarshal.AsBytes(entries.AsSpan(0, pages));
                long offset = (long)((nuint)at / (nuint)Pages.Size) * sizeof(ulong);
                if (!TryReadExactly(pagemap, bytes, offset))
                {
                    return false;
                }

                long present = 0;
                for (int i = 0; i < pages; i++)
                {
                    present += (long)(entries[i] >> 63);
                }

                batches.Add(present, (entries[0] & Present) != 0, (entries[pages - 1] & Present) != 0);
            }

            presentBytes = batches.Bytes;
            return true;
        }
        finally
        {
            ArrayPool<ulong>.Shared.Return(entries);
        }
    }

    /// <summary>Adds the mapped runs of page-aligned [start, end) to <paramref name="runs"/>; false, adding nothing, where pagemap is unreadable.</summary>
    internal bool TryFind(nint start, nint end, List<MappedRun> runs)
    {
        if (Open() is not SafeFileHandle pagemap)
        {
            return false;
        }

        int before = runs.Count;
        ulong[] entries = ArrayPool<ulong>.Shared.Rent(PagesPerRead);
        try
        {
            long pages = (end - start) / Pages.Size;
            long first = (long)((ulong)start / (ulong)Pages.Size);
            for (long done = 0; done < pages;)
            {
                int count = (int)Math.Min(PagesPerRead, pages - done);
                if (!TryReadExactly(pagemap, MemoryMarshal.AsBytes(entries.AsSpan(0, count)), (first + done) * sizeof(ulong)))
                {
                    runs.RemoveRange(before, runs.Count - before);
                    return false;
                }

                for (int i = 0; i < count; i++)
                {
                    ulong entry = entries[i];
                    if ((entry & Present) == 0)
                    {
                        continue;
                    }

                    nint page = start + (nint)((done + i) * Pages.Size);
                    bool shared = (entry & Exclusive) == 0;
                    if (runs.Count > before && runs[^1].End == page && runs[^1].IsShared == shared)
                    {
                        runs[^1] = runs[^1] with { End = page + (nint)Pages.Size };
                    }
                    else
                    {
                        runs.Add(new MappedRun(page, page + (nint)Pages.Size, shared));
                    }
                }

                done += count;
            }

            return true;
        }
        finally
        {
            ArrayPool<ulong>.Shared.Return(entries);
        }
    }

    public void Dispose() => _pagemap?.Dispose();

    private SafeFileHandle? Open()
    {
        if (_pagemap is null && !_unavailable)
        {
            try
            {
                _pagemap = File.OpenHandle("/proc/self/pagemap", FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                _unavailable = true;
            }
        }

        return _pagemap;
    }

    private static bool TryReadExactly(SafeFileHandle pagemap, Span<byte> destination, long offset)
    {
        try
        {
            while (!destination.IsEmpty)
            {
                int read = RandomAccess.Read(pagemap, destination, offset);
                if (read <= 0)
                {
                    return false;
                }

                destination = destination[read..];
                offset += read;
            }

            return true;
        }
        catch (IOException)
        {
            return false;
        }
    }
}
