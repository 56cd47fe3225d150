namespace Sharpi.Prefault;

/// <summary>
/// A grow-only list that becomes an array, for this assembly's structs on the first call's path: a ReadyToRun image
/// holds its code for them, where it holds none of List&lt;T&gt;'s.
/// </summary>
internal struct ArrayBuilder<T>
{
    private T[]? _items;
    private int _count;

    internal readonly int Count => _count;

    internal void Add(T item)
    {
        if (_items is null || _count == _items.Length)
        {
            Grow();
        }

        _items![_count++] = item;
    }

    internal readonly T[] ToArray()
    {
        var result = new T[_count];
        for (int i = 0; i < _count; i++)
        {
            result[i] = _items![i];
        }

        return result;
    }

    private void Grow()
    {
        var larger = new T[_items is null ? 8 : 2 * _items.Length];
        for (int i = 0; i < _count; i++)
        {
            larger[i] = _items![i];
        }

        _items = larger;
    }
}
