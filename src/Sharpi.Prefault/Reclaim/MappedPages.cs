using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

/// <summary>A run of pages still mapped into this process, all mapped elsewhere too (<see cref="IsShared"/>) or all only here.</summary>
internal readonly record struct MappedRun(nint Start, nint End, bool IsShared)
{
    internal long Length => End - Start;
}

/// <summary>
/// /proc/self/pagemap (Linux): which pages of a range this process's page table still maps, and whether each is
/// mapped only here (bit 56, "exclusively mapped"). Unlike mincore, which answers for the page cache, this is what
/// RSS counts; the flags are readable without privilege (only the frame numbers are hidden).
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class MappedPages : IDisposable
{
    private const string PagemapPath = "/proc/self/pagemap";
    private const ulong Present = 1UL << 63;
    private const ulong Exclusive = 1UL << 56;
    private const int EntriesPerRead = 8192; // 64 KiB of entries: 32 MiB of address space per read

    private readonly SafeFileHandle _pagemap;

    private MappedPages(SafeFileHandle pagemap) => _pagemap = pagemap;

    /// <summary>The reader, or null where /proc/self/pagemap cannot be opened.</summary>
    internal static MappedPages? TryOpen()
    {
        try
        {
            return new MappedPages(File.OpenHandle(PagemapPath, FileMode.Open, FileAccess.Read, FileShare.ReadWrite));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>
    /// Adds to <paramref name="runs"/> the runs of [<paramref name="start"/>, <paramref name="end"/>) (page-aligned) that
    /// this process maps now; false, adding nothing, where pagemap could not be read.
    /// </summary>
    internal bool TryFind(nint start, nint end, List<MappedRun> runs)
    {
        int before = runs.Count;
        byte[] buffer = ArrayPool<byte>.Shared.Rent(EntriesPerRead * sizeof(ulong));
        try
        {
            long pages = (end - start) / Pages.Size;
            long first = (long)((ulong)start / (ulong)Pages.Size);
            for (long done = 0; done < pages;)
            {
                int count = (int)Math.Min(EntriesPerRead, pages - done);
                Span<byte> entries = buffer.AsSpan(0, count * sizeof(ulong));
                if (RandomAccess.Read(_pagemap, entries, (first + done) * sizeof(ulong)) != entries.Length)
                {
                    runs.RemoveRange(before, runs.Count - before);
                    return false;
                }

                for (int i = 0; i < count; i++)
                {
                    ulong entry = BinaryPrimitives.ReadUInt64LittleEndian(entries[(i * sizeof(ulong))..]);
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
        catch (IOException)
        {
            runs.RemoveRange(before, runs.Count - before);
            return false;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    public void Dispose() => _pagemap.Dispose();
}
