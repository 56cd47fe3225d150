namespace Sharpi.Prefault;

/// <summary>The OS page size, and rounding to it.</summary>
internal static class Pages
{
    internal static readonly nint Size = Environment.SystemPageSize;

    internal static nint Floor(nint address) => address & ~(Size - 1);

    internal static nint Ceiling(nint address) => (address + Size - 1) & ~(Size - 1);

    internal static long Floor(long bytes) => bytes & ~((long)Size - 1);

    /// <summary>Rounded up to whole pages; <see cref="OverflowException"/> past <see cref="long.MaxValue"/>.</summary>
    internal static long Ceiling(long bytes) => checked(bytes + Size - 1) & ~((long)Size - 1);
}
