namespace Sharpi.Prefault;

/// <summary>A range ending at <see cref="End"/> (exclusive).</summary>
internal interface IAddressRange
{
    nint End { get; }
}

/// <summary>Searches over sorted, disjoint address ranges.</summary>
internal static class AddressRanges
{
    /// <summary>Index of the first range ending above <paramref name="address"/> (unsigned), or the count.</summary>
    internal static int FirstEndingAfter<T>(T[] ranges, nint address)
        where T : IAddressRange
    {
        int lo = 0, hi = ranges.Length;
        while (lo < hi)
        {
            int mid = (lo + hi) >>> 1;
            if ((nuint)ranges[mid].End <= (nuint)address)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid;
            }
        }

        return lo;
    }

    /// <inheritdoc cref="FirstEndingAfter{T}(T[], nint)"/>
    internal static int FirstEndingAfter(ReadOnlySpan<(nint Start, nint End)> ranges, nint address) =>
        ~ranges.BinarySearch(new EndsAfter(address));

    /// <summary>Never equal, so the search ends where the first range ending above address lies.</summary>
    private readonly struct EndsAfter(nint address) : IComparable<(nint Start, nint End)>
    {
        public int CompareTo((nint Start, nint End) other) => (nuint)other.End <= (nuint)address ? 1 : -1;
    }
}
