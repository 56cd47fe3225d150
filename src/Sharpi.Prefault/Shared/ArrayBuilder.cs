namespace Sharpi.Prefault;

/// <summary>
/// A list that only grows, then becomes an array, for this assembly's value types on the first call's path: a
/// ReadyToRun image holds its code for them (it is this assembly's generic over this assembly's type), where it can
/// hold none of <c>List&lt;T&gt;</c>'s, so an engine's first <c>Run</c> compiled 8 of List's methods per type.
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
