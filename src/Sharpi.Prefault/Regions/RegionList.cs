using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Sharpi.Prefault;

/// <summary>The list and array overloads' regions as a span.</summary>
internal static class RegionList
{
    /// <summary>Copied only where no array or List; <see cref="ArgumentNullException"/> for null.</summary>
    internal static ReadOnlySpan<PrefaultRegion> AsSpan(IReadOnlyList<PrefaultRegion> regions, [CallerArgumentExpression(nameof(regions))] string? name = null)
    {
        ArgumentNullException.ThrowIfNull(regions, name);
        return regions switch
        {
            PrefaultRegion[] array => array,
            List<PrefaultRegion> list => CollectionsMarshal.AsSpan(list),
            _ => regions.ToArray(),
        };
    }

    /// <inheritdoc cref="AsSpan(IReadOnlyList{PrefaultRegion}, string?)"/>
    internal static ReadOnlySpan<PrefaultRegion> AsSpan(PrefaultRegion[] regions, [CallerArgumentExpression(nameof(regions))] string? name = null)
    {
        ArgumentNullException.ThrowIfNull(regions, name);
        return regions;
    }
}
