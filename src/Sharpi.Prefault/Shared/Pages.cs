namespace Sharpi.Prefault;

/// <summary>Page rounding in one place: the OS page size, and addresses and byte counts rounded to it.</summary>
internal static class Pages
{
    /// <summary>The OS page size in bytes (a power of two).</summary>
    internal static readonly nint Size = Environment.SystemPageSize;

    /// <summary>The start of the page holding <paramref name="address"/>.</summary>
    internal static nint Floor(nint address) => address & ~(Size - 1);

    /// <summary>The first page boundary at or after <paramref name="address"/>.</summary>
    internal static nint Ceiling(nint address) => (address + Size - 1) & ~(Size - 1);

    /// <summary><paramref name="bytes"/> rounded down to whole pages.</summary>
    internal static long Floor(long bytes) => bytes & ~((long)Size - 1);

    /// <summary><paramref name="bytes"/> rounded up to whole pages (checked: throws <see cref="OverflowException"/> past <see cref="long.MaxValue"/>).</summary>
    internal static long Ceiling(long bytes) => checked(bytes + Size - 1) & ~((long)Size - 1);
}
