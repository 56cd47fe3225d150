using System.Runtime.CompilerServices;

namespace Sharpi.Prefault;

/// <summary>The region list every feature's entry point takes, as the span its implementation reads.</summary>
internal static class RegionList
{
    /// <summary>
    /// The regions an entry point was given, checked (<see cref="RegionSet.Validate"/>), as a span: without copying where
    /// the list is an array or a List, a copy otherwise. Throws <see cref="ArgumentNullException"/> for null.
    /// </summary>
    internal static ReadOnlySpan<PrefaultRegion> Checked(IReadOnlyList<PrefaultRegion> regions, [CallerArgumentExpression(nameof(regions))] string? name = null)
    {
        ArgumentNullException.ThrowIfNull(regions, name);
        ReadOnlySpan<PrefaultRegion> span = regions switch
        {
            PrefaultRegion[] array => array,
            List<PrefaultRegion> list => CollectionsMarshal.AsSpan(list),
            _ => regions.ToArray(),
        };
        RegionSet.Validate(span, name!);
        return span;
    }
}
