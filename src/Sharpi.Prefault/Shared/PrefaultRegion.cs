using System.IO.MemoryMappedFiles;

namespace Sharpi.Prefault;

/// <summary>A range of mapped memory an engine will read.</summary>
/// <remarks>A raw pointer: keep the mapping alive while a prefault runs.</remarks>
public readonly struct PrefaultRegion(nint address, long length, string? name = null)
{
    /// <summary>First byte of the range. Need not be page-aligned.</summary>
    public nint Address { get; init; } = address;

    /// <summary>Length in bytes; empty regions are skipped.</summary>
    public long Length { get; init; } = length;

    /// <summary>Optional name for logs.</summary>
    public string? Name { get; init; } = name;

    /// <summary>One past the last byte of the region.</summary>
    public nint End => Address + (nint)Length;

    /// <summary>True for zero length or a null address.</summary>
    public bool IsEmpty => Length == 0 || Address == 0;

    /// <summary>Builds a region over <paramref name="length"/> bytes at <paramref name="offset"/> from the accessor's start.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="accessor"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The range does not lie inside the view.</exception>
    /// <exception cref="ObjectDisposedException">The accessor was disposed.</exception>
    public static PrefaultRegion FromView(MemoryMappedViewAccessor accessor, long offset, long length, string? name = null)
    {
        ArgumentNullException.ThrowIfNull(accessor);
        ThrowHelper.ThrowIfRangeOutside(offset, length, accessor.Capacity, nameof(offset), nameof(length));
        SafeMemoryMappedViewHandle handle = accessor.SafeMemoryMappedViewHandle;
        ObjectDisposedException.ThrowIf(handle.IsClosed, accessor);
        return new PrefaultRegion(BaseAddress(handle) + (nint)accessor.PointerOffset + (nint)offset, length, name);
    }

    /// <summary>Builds a region over a whole accessor's view.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="accessor"/> is null.</exception>
    public static PrefaultRegion FromView(MemoryMappedViewAccessor accessor, string? name = null)
    {
        ArgumentNullException.ThrowIfNull(accessor);
        return FromView(accessor, 0, accessor.Capacity, name);
    }

    /// <summary>Builds a region at <paramref name="offset"/> of a view handle.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="view"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The range does not lie inside the view.</exception>
    /// <exception cref="ObjectDisposedException">The handle was closed.</exception>
    internal static PrefaultRegion FromView(SafeMemoryMappedViewHandle view, long offset, long length, string? name = null)
    {
        ArgumentNullException.ThrowIfNull(view);
        ObjectDisposedException.ThrowIf(view.IsClosed, view);
        ThrowHelper.ThrowIfRangeOutside(offset, length, checked((long)view.ByteLength), nameof(offset), nameof(length));
        return new PrefaultRegion(BaseAddress(view) + (nint)offset, length, name);
    }

    /// <summary>The view's base address, via AcquirePointer/ReleasePointer.</summary>
    private static unsafe nint BaseAddress(SafeMemoryMappedViewHandle view)
    {
        byte* pointer = null;
        view.AcquirePointer(ref pointer);
        try
        {
            return (nint)pointer;
        }
        finally
        {
            view.ReleasePointer();
        }
    }
}
