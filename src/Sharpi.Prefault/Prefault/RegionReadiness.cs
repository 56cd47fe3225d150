namespace Sharpi.Prefault;

/// <summary>Which of the caller's regions the sweep is done with, for <see cref="PrefaultHandle.WhenReady"/>.</summary>
internal sealed class RegionReadiness
{
    private readonly TaskCompletionSource[] _ready;
    private int[] _memberOf = [];    // caller region -> its merged range (-1: empty)
    private int[] _pending = [];     // by merged range: work regions still being swept
    private int[] _firstMember = []; // by merged range; -1: none
    private int[] _nextMember = [];  // by caller region; -1: last

    internal RegionReadiness(int count)
    {
        _ready = new TaskCompletionSource[count];
        for (int i = 0; i < count; i++)
        {
            _ready[i] = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        }
    }

    internal int Count => _ready.Length;

    internal Task WhenReady(int region) => _ready[region].Task;

    internal MergedRegion[] Merge(ReadOnlySpan<PrefaultRegion> regions)
    {
        System.Diagnostics.Debug.Assert(regions.Length == _ready.Length, "one readiness per caller region");
        _memberOf = new int[_ready.Length];
        MergedRegion[] merged = RegionSet.Merge(regions, _memberOf);
        _firstMember = new int[_ready.Length];
        _nextMember = new int[_ready.Length];
        _firstMember.AsSpan().Fill(-1);
        for (int i = _ready.Length - 1; i >= 0; i--)
        {
            if (_memberOf[i] >= 0)
            {
                _nextMember[i] = _firstMember[_memberOf[i]];
                _firstMember[_memberOf[i]] = i;
            }
        }

        return merged;
    }

    /// <summary>Before the sweep: regions with no work region are ready now.</summary>
    internal void Expect(MergedRegion[] work)
    {
        _pending = new int[_ready.Length];
        foreach (MergedRegion r in work)
        {
            _pending[r.Order]++;
        }

        for (int i = 0; i < _ready.Length; i++)
        {
            if (_memberOf[i] < 0 || _pending[_memberOf[i]] == 0)
            {
                _ready[i].TrySetResult();
            }
        }
    }

    internal void Swept(int order)
    {
        if (Interlocked.Decrement(ref _pending[order]) == 0)
        {
            for (int i = _firstMember[order]; i >= 0; i = _nextMember[i])
            {
                _ready[i].TrySetResult();
            }
        }
    }

    /// <summary>Whatever is not ready yet (cancelled, skipped) is now.</summary>
    internal void CompleteAll()
    {
        foreach (TaskCompletionSource ready in _ready)
        {
            ready.TrySetResult();
        }
    }
}
