namespace Sharpi.Prefault;

/// <summary>A range of the address space that ends at <see cref="End"/> (exclusive).</summary>
internal interface IAddressRange
{
    nint End { get; }
}

/// <summary>Searches over address ranges sorted by address and disjoint (/proc/self/maps entries, a file's mapped pieces).</summary>
internal static class AddressRanges
{
    /// <summary>Index of the first range whose end lies above <paramref name="address"/> (unsigned), or the count.</summary>
    /// <remarks>
    /// Over an array, not a span: it runs at an engine's first call (residency, staging), where converting the
    /// library's struct arrays to spans runs framework generics over those structs that no ReadyToRun image can hold
    /// (three methods compiled by the JIT per struct).
    /// </remarks>
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
    /// <remarks>
    /// The framework's binary search, where the generic one above is written out: that one runs at an engine's first
    /// call (residency, staging), where the framework's search over the library's own structs would be compiled by the
    /// JIT; this one serves the lock and reclaim paths.
    /// </remarks>
    internal static int FirstEndingAfter(ReadOnlySpan<(nint Start, nint End)> ranges, nint address) =>
        ~ranges.BinarySearch(new EndsAfter(address)); // never equal: the complement of where the search stopped

    /// <summary>Orders a range after <c>address</c> when it ends at or below it (unsigned), before it otherwise; never equal.</summary>
    private readonly struct EndsAfter(nint address) : IComparable<(nint Start, nint End)>
    {
        public int CompareTo((nint Start, nint End) other) => (nuint)other.End <= (nuint)address ? 1 : -1;
    }
}
