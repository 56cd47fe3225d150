namespace Sharpi.Prefault;

public static partial class MmapPrefault
{
    /// <summary>
    /// Starts <see cref="Run(IReadOnlyList{PrefaultRegion}, PrefaultOptions?, CancellationToken)"/> in the background and
    /// returns at once, so the prefault overlaps the engine's other init work. The same RAM gate and kill switch apply.
    /// </summary>
    /// <param name="regions">The regions, hot ones first. Copied: the list may change after the call.</param>
    /// <param name="options">Settings; every default when null.</param>
    /// <param name="cancellationToken">Stops the sweep between chunks, as <see cref="PrefaultHandle.Cancel"/> does.</param>
    /// <returns>A handle: await <see cref="PrefaultHandle.Completion"/> before the first request; dispose it before unmapping.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="regions"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A region has a negative length or runs past the address space.</exception>
    /// <remarks>
    /// Its threads run below normal priority (<see cref="PrefaultOptions.WorkerPriority"/>). Where no thread can be
    /// started, the prefault runs on the calling thread and the handle returned is complete: it never fails a load.
    /// </remarks>
    public static PrefaultHandle Start(IReadOnlyList<PrefaultRegion> regions, PrefaultOptions? options = null, CancellationToken cancellationToken = default)
        => new(RegionList.Checked(regions).ToArray(), options ?? PrefaultOptions.Default, cancellationToken);
}
