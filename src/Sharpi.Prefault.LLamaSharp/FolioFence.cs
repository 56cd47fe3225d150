using System.Runtime.Versioning;

namespace Sharpi.Prefault.LLamaSharp;

/// <summary>Keeps the tensors llama.cpp reads in place from mapping their given-back neighbours back in.</summary>
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
