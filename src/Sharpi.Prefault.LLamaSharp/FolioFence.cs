using System.Runtime.Versioning;

namespace Sharpi.Prefault.LLamaSharp;

/// <summary>
/// Keeps the tensors llama.cpp reads in place from mapping their given-back neighbours back in. The page cache holds a
/// file in large folios (up to 2 MiB), and a fault maps a whole folio at once where it fits in the mapping, so the first
/// read of a small in-place tensor (a norm, the output head) maps the repacked neighbours that share its folio back
/// into the process: about 30-40 MiB of RssFile for the 1 GiB test model. Advising the in-place tensors' pages with
/// <c>MADV_NOHUGEPAGE</c> splits llama.cpp's mapping at their edges (the flag differs from the neighbours'), and a fault
/// maps no further than its own piece of the mapping. The flag itself only keeps those pieces off 2 MiB mappings, which
/// tensors of a few KiB to a few MiB do not need; the mapping stays valid and its bytes unchanged.
/// </summary>
internal static class FolioFence
{
    /// <summary>Splits the mapping at the edges of <paramref name="inPlace"/> (whole pages, rounded outward); returns the pieces advised.</summary>
    [SupportedOSPlatform("linux")]
    internal static unsafe int Apply(List<PrefaultRegion> inPlace)
    {
        long page = Environment.SystemPageSize;
        int advised = 0;
        foreach (PrefaultRegion r in inPlace)
        {
            long start = (long)r.Address / page * page;
            long end = ((long)r.End + page - 1) / page * page;
            if (end > start && Interop.Libc.Madvise((void*)start, (nuint)(end - start), Interop.Libc.MADV_NOHUGEPAGE) == 0)
            {
                advised++;
            }
        }

        return advised;
    }
}
