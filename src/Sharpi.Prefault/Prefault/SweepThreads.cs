namespace Sharpi.Prefault;

/// <summary>
/// How one run's sweep uses threads, decided once by its entry point.
/// <list type="bullet">
/// <item><c>Run</c>, which the caller waits on: up to <see cref="PrefaultOptions.MaxDegreeOfParallelism"/> threads at
/// <see cref="Priority"/> (normal unless <see cref="PrefaultOptions.WorkerPriority"/> says otherwise), each reading and
/// mapping its own chunks (<see cref="StrideSweep.Execute"/>).</item>
/// <item><c>Start</c>, beside the engine's init, where the run reads in read-ahead windows (4 KiB folios, see
/// <see cref="FileStaging"/>): its background thread, at <see cref="Priority"/> (below normal, nice 10), asks for the
/// chunks' file bytes in order at most <see cref="ReadAheadBytes"/> ahead of the sweep and sweeps a chunk itself
/// whenever it may read no further, while <see cref="Helpers"/> threads, no more than cores, sweep beside it at
/// <see cref="HelperPriority"/> (below normal, nice 10, as the background thread) where the cores have time
/// (<see cref="StrideSweep.ExecuteBehindReadAhead"/>). Elsewhere (2 MiB folios, a touch) Start sweeps as Run does, on
/// its <see cref="Threads"/> at <see cref="Priority"/>. Start reads in windows where a run's exact reads do (a sparse
/// selection, a run the RAM budget cut) and where the huge-page advice is off (<see cref="PrefaultOptions.IsHugePageAdviceEnabled"/>
/// false, transparent huge pages never), not because the VM reports free pages: there, where Run reads in windows,
/// Start keeps the advice (<see cref="SweepMechanism.Choose"/>).</item>
/// </list>
/// </summary>
/// <remarks>Start splits the windowed work because reading a page into the page cache and mapping it is kernel CPU work charged to the thread that asks; docs/mechanisms.md has the measurements.</remarks>
/// <param name="Threads">Run, and Start where it does not read ahead: the most threads that sweep.</param>
/// <param name="Priority">Their priority; Start's background thread's in either layout.</param>
/// <param name="Helpers">Start, reading ahead: the threads beside the background thread.</param>
/// <param name="HelperPriority">Start, reading ahead: the helpers' priority.</param>
/// <param name="ReadAheadBytes">Start: how far the reads may run ahead of the chunks swept; 0 for Run, which reads no chunk ahead.</param>
/// <param name="TouchesAfterPopulate">
/// The sweep may read pages again after their populate (<see cref="SweepMechanism.TouchesAfterPopulate"/>): Run; not
/// Start, where those reads, and a host's faults under them, are CPU the engine's init loses.
/// </param>
/// <param name="KeepsHugePageAdvice">
/// The static order beside an init (<see cref="MechanismChoice.Order"/>): huge pages, then windows, whose layout
/// beside an init was measured; Start's, whose init loses the kernel's work for each 4 KiB folio to the sweep.
/// </param>
internal readonly record struct SweepThreads(int Threads, ThreadPriority Priority, int Helpers = 0, ThreadPriority HelperPriority = ThreadPriority.Normal,
    long ReadAheadBytes = 0, bool TouchesAfterPopulate = true, bool KeepsHugePageAdvice = false)
{
    /// <summary>How far Start's reads run ahead of its sweep: four default chunks, enough reads in flight to keep a disk busy.</summary>
    internal const long StartReadAheadBytes = 128L * 1024 * 1024;

    /// <summary>Start's reader runs ahead of its sweep where the run reads in windows (<see cref="StrideSweep.ExecuteBehindReadAhead"/>).</summary>
    internal bool ReadsAheadOfSweep => ReadAheadBytes > 0;

    /// <summary>Run's threads: the caller waits, so they sweep at the asked priority (normal by default), as many as asked.</summary>
    internal static SweepThreads ForRun(PrefaultOptions options) => new(options.MaxDegreeOfParallelism, options.WorkerPriority ?? ThreadPriority.Normal);

    /// <summary>
    /// Start's threads: the background thread below normal; reading ahead, helpers below normal too, one per
    /// processor at most and no more threads in all than <see cref="PrefaultOptions.MaxDegreeOfParallelism"/> (1: the
    /// background thread alone); otherwise <see cref="PrefaultOptions.MaxDegreeOfParallelism"/> threads below normal. A
    /// priority the caller set applies to every thread alike (<see cref="ThreadPriority.Normal"/>: the sweep competes
    /// with the init).
    /// </summary>
    internal static SweepThreads ForStart(PrefaultOptions options) => new(
        options.MaxDegreeOfParallelism,
        options.WorkerPriority ?? ThreadPriority.BelowNormal,
        Math.Min(options.MaxDegreeOfParallelism - 1, Environment.ProcessorCount),
        options.WorkerPriority ?? ThreadPriority.BelowNormal,
        StartReadAheadBytes,
        TouchesAfterPopulate: false,
        KeepsHugePageAdvice: true);
}
