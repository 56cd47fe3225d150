using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>The page-cache state a row starts from.</summary>
internal enum CacheState
{
    /// <summary>Evicted with <see cref="PageCache.Evict(string)"/>; residency checked near 0% first.</summary>
    Cold,

    /// <summary>Fully in the page cache, but mapped afresh (no page-table entries yet).</summary>
    Warm,
}

/// <summary>Brings the file into a cache state and proves it, or fails loudly: a cold row over a cached file is a lie.</summary>
internal static class CacheControl
{
    private const double ColdMaxPercent = 1.0;
    private const double WarmMinPercent = 99.0;

    internal static string Name(CacheState state) => state == CacheState.Cold ? "cold" : "warm";

    /// <summary>
    /// <c>--cache</c>'s comma-separated states, each once, in the order given (none for none); an unknown one is a
    /// <see cref="BenchException"/> that offers <paramref name="choices"/> (each command names its default first).
    /// </summary>
    internal static CacheState[] Parse(string? value, string choices) => CommaList.Parse(value, c => c switch
    {
        "cold" => CacheState.Cold,
        "warm" => CacheState.Warm,
        _ => throw new BenchException($"--cache: unknown state '{c}'; use {choices}."),
    });

    /// <summary>As <see cref="Parse"/>, and at least one state, or a <see cref="BenchException"/>.</summary>
    internal static CacheState[] ParseSome(string? value, string choices)
    {
        CacheState[] states = Parse(value, choices);
        return states.Length > 0 ? states : throw new BenchException($"--cache: give {choices}.");
    }

    /// <summary>Sets the state and returns the measured residency in percent.</summary>
    [SupportedOSPlatform("linux")]
    internal static double Establish(WeightsFile file, CacheState state)
    {
        if (state == CacheState.Cold)
        {
            PageCache.Evict(file.Path);
            if (file.AlsoEvict is { } beneath)
            {
                PageCache.Evict(beneath);
            }

            double percent = Residency.OfFile(file.Path).Percent;
            if (percent > ColdMaxPercent)
            {
                throw new BenchException(
                    $"Could not make '{file.Path}' cold: {percent:0.0}% is still in the page cache after PageCache.Evict. " +
                    "Another process may map it, or the filesystem keeps its pages (tmpfs, some network or FUSE filesystems). Use --dir on a disk filesystem.");
            }

            return percent;
        }

        ResidencyInfo residency = Residency.OfFile(file.Path);
        if (residency.Percent < 100)
        {
            file.ReadWhole(8 * 1024 * 1024); // through the page cache: every page cached, none mapped
            residency = Residency.OfFile(file.Path);
        }

        if (residency.Percent < WarmMinPercent)
        {
            throw new BenchException(
                $"Could not make '{file.Path}' warm: only {residency.Percent:0.0}% stays in the page cache after reading it. " +
                "The machine may lack the free memory to cache it; use a smaller --size.");
        }

        return residency.Percent;
    }
}
