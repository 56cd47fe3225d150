using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;

namespace Sharpi.Prefault;

/// <summary>Cold throw paths, out of the callers' bodies; each feature adds its own part.</summary>
internal static partial class ThrowHelper
{
    internal static void ThrowIfRangeOutside(long offset, long length, long capacity, string offsetName, string lengthName)
    {
        if (offset < 0 || offset > capacity)
        {
            ThrowOffsetOutside(offset, capacity, offsetName);
        }

        if (length < 0 || length > capacity - offset)
        {
            ThrowLengthOutside(offset, length, capacity, lengthName);
        }
    }

    /// <summary>The value, checked not null, empty or white space.</summary>
    internal static string NotBlank(string value, [CallerArgumentExpression(nameof(value))] string? name = null)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(value, name);
        return value;
    }

    /// <summary>The value, checked a fraction in (0, 1].</summary>
    internal static double ValidFraction(double value, [CallerArgumentExpression(nameof(value))] string? name = null)
    {
        ThrowIfInvalidFraction(value, name);
        return value;
    }

    /// <summary>The value, checked within [<paramref name="min"/>, <paramref name="max"/>].</summary>
    internal static T InRange<T>(T value, T min, T max, [CallerArgumentExpression(nameof(value))] string? name = null)
        where T : IComparable<T>
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(value, min, name);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(value, max, name);
        return value;
    }

    /// <summary>The value, checked a defined member of its enum.</summary>
    internal static TEnum Defined<TEnum>(TEnum value, [CallerArgumentExpression(nameof(value))] string? name = null)
        where TEnum : struct, Enum
    {
        ThrowIfUndefined(value, name);
        return value;
    }

    /// <summary>Throws when a known figure of <paramref name="memory"/> is negative.</summary>
    internal static void ThrowIfNegativeFigures(MemoryFigures memory, [CallerArgumentExpression(nameof(memory))] string? name = null)
    {
        if (memory.AvailableBytes < 0 || memory.CgroupLimitBytes < 0 || memory.CgroupUsedBytes < 0)
        {
            throw new ArgumentOutOfRangeException(name, memory,
                "Memory figures are byte counts and cannot be negative (null: unknown).");
        }
    }

    internal static void ThrowIfInvalidFraction(double value, [CallerArgumentExpression(nameof(value))] string? name = null)
    {
        if (!(value > 0 && value <= 1))
        {
            ThrowInvalidFraction(value, name);
        }
    }

    internal static void ThrowIfUndefined<TEnum>(TEnum value, [CallerArgumentExpression(nameof(value))] string? name = null)
        where TEnum : struct, Enum
    {
        if (!Enum.IsDefined(value))
        {
            ThrowUndefined(value, name);
        }
    }

    [DoesNotReturn]
    internal static void ThrowRegionLength(int index, long length, string paramName) =>
        throw new ArgumentOutOfRangeException(paramName, length,
            $"Region {index} has a negative length ({length}). Pass the region's size in bytes (zero-length regions are skipped).");

    [DoesNotReturn]
    internal static void ThrowRegionOverflow(int index, nint address, long length, string paramName) =>
        throw new ArgumentOutOfRangeException(paramName, length,
            $"Region {index} at 0x{address:X} with length {length} runs past the end of the address space. Check the pointer and length the region was built from.");

    [DoesNotReturn]
    private static void ThrowOffsetOutside(long offset, long capacity, string name) =>
        throw new ArgumentOutOfRangeException(name, offset, $"Offset {offset} lies outside the view of {capacity} bytes.");

    [DoesNotReturn]
    private static void ThrowLengthOutside(long offset, long length, long capacity, string name) =>
        throw new ArgumentOutOfRangeException(name, length,
            length < 0
                ? $"Length {length} is negative."
                : $"Offset {offset} + length {length} runs past the end of the view of {capacity} bytes.");

    [DoesNotReturn]
    private static void ThrowInvalidFraction(double value, string? name) =>
        throw new ArgumentOutOfRangeException(name, value, "The RAM fraction must be a number greater than 0 and at most 1 (for example 0.8).");

    [DoesNotReturn]
    private static void ThrowUndefined<TEnum>(TEnum value, string? name)
        where TEnum : struct, Enum =>
        throw new ArgumentOutOfRangeException(name, value, $"{value} is not a defined {typeof(TEnum).Name}.");

    internal static void ThrowIfIndexOutOfRange(int index, int count, [CallerArgumentExpression(nameof(index))] string? name = null)
    {
        if ((uint)index >= (uint)count)
        {
            ThrowIndexOutOfRange(index, count, name);
        }
    }

    [DoesNotReturn]
    private static void ThrowIndexOutOfRange(int index, int count, string? name) =>
        throw new ArgumentOutOfRangeException(name, index, $"The index must be at least 0 and less than {count}, the number of regions given.");
}
