namespace Sharpi.Prefault;

public static partial class MmapPrefault
{
    /// <summary>
    /// Starts <see cref="Run(IReadOnlyList{PrefaultRegion}, PrefaultOptions?, CancellationToken)"/> in the background and returns at once,
    /// so the read-ahead overlaps the engine's other init work (graph building, GPU uploads, KV-cache allocation).
    /// The same gate and kill switch apply. Its threads yield to the init unless <see cref="PrefaultOptions.WorkerPriority"/>
    /// is set (<see cref="ThreadPriority.Normal"/> included). It never reads pages again after their populate (what
    /// <c>Run</c> does where a sample finds the first access slow, as on memory a VM's host took back): that read would
    /// run on the init's cores, so the request pays those faults instead. On a VM that reports free pages to its host,
    /// where <c>Run</c> withholds the huge-page advice (reading in 4 KiB folios where read-ahead windows read more than
    /// the device's own read-ahead), Start keeps it (2 MiB folios cost the init next to
    /// nothing, 4 KiB ones the kernel's work for each; <see cref="PrefaultResult.ReadAheadDescription"/> says so). Where
    /// the file bytes come in through read-ahead windows (4 KiB folios: a sparse selection's exact reads, or the
    /// huge-page advice turned off), the background thread asks
    /// for them in order at <see cref="ThreadPriority.BelowNormal"/> (on Linux, nice 10), a little ahead of the sweep,
    /// and helpers, no more than processors, map them at the same priority (not lower: a thread at nice 19 in the middle
    /// of its chunk kept Dispose waiting seconds beside busy cores), so an init that keeps every core busy loses less
    /// to the kernel's work for each page; elsewhere up to
    /// <see cref="PrefaultOptions.MaxDegreeOfParallelism"/> threads sweep below normal, as the sweep then costs the CPU
    /// next to nothing. Use <see cref="PrefaultOptions.MaxDegreeOfParallelism"/> to leave cores to the init work. Where no thread can be started (the process or its pids cgroup at its thread
    /// limit), the prefault runs on the calling thread and Start returns once it is done, with the handle complete:
    /// a prefault never fails a load.
    /// </summary>
    /// <param name="regions">The regions, hot ones first. Copied: the list may change after the call.</param>
    /// <param name="options">Settings; every default when null.</param>
    /// <param name="cancellationToken">
    /// Stops the sweep between chunks, as <see cref="PrefaultHandle.Cancel"/> does; <see cref="PrefaultHandle.Completion"/>
    /// then reports <see cref="PrefaultResult.IsCanceled"/>. Never throws.
    /// </param>
    /// <returns>A handle: await <see cref="PrefaultHandle.Completion"/> before the first request; dispose it before unmapping.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="regions"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A region has a negative length or runs past the address space.</exception>
    /// <remarks>One shape for every caller: arrays, lists, the library's own region lists and C# 12 collection expressions bind to it (docs/architecture.md, "The public API").</remarks>
    public static PrefaultHandle Start(IReadOnlyList<PrefaultRegion> regions, PrefaultOptions? options = null, CancellationToken cancellationToken = default)
        => Start(RegionList.AsSpan(regions), options, cancellationToken);

    private static PrefaultHandle Start(ReadOnlySpan<PrefaultRegion> regions, PrefaultOptions? options = null, CancellationToken cancellationToken = default)
    {
        RegionSet.Validate(regions, nameof(regions));
        return new PrefaultHandle(regions.ToArray(), options ?? PrefaultOptions.Default, cancellationToken);
    }
}
