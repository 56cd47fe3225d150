namespace Sharpi.Prefault;

/// <summary>One shared array per distinct tensor shape in a header: a model repeats a few shapes across its layers.</summary>
internal sealed class ShapeTable
{
    private readonly Dictionary<long[], long[]> _shapes = new(ShapeComparer.Instance);

    /// <summary>The shared array equal to <paramref name="dimensions"/>.</summary>
    internal long[] Get(ReadOnlySpan<long> dimensions)
    {
        if (dimensions.IsEmpty)
        {
            return [];
        }

        long[] shape = dimensions.ToArray();
        if (_shapes.TryGetValue(shape, out long[]? shared))
        {
            return shared;
        }

        _shapes.Add(shape, shape);
        return shape;
    }

    private sealed class ShapeComparer : IEqualityComparer<long[]>
    {
        internal static readonly ShapeComparer Instance = new();

        public bool Equals(long[]? x, long[]? y) => x.AsSpan().SequenceEqual(y);

        public int GetHashCode(long[] shape)
        {
            var hash = new HashCode();
            foreach (long extent in shape)
            {
                hash.Add(extent);
            }

            return hash.ToHashCode();
        }
    }
}
