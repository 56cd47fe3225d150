using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Sharpi.Prefault;

/// <summary>The list and array overloads of every feature's entry points, turned into the span overload they forward to.</summary>
internal static class RegionList
{
    /// <summary>
    /// The regions a public list overload was given, as the span its span overload takes: without copying where the
    /// list is an array or a List, a copy otherwise. Throws <see cref="ArgumentNullException"/> for null.
    /// </summary>
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
