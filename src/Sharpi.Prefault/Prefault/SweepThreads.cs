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
/// <remarks>
/// <para>
/// Why Start splits the windowed work: reading a page into the page cache and mapping it are CPU work in the kernel,
/// charged to the thread that asks. On a cold 1 GiB (2 cores, kernel 6.18, read_ahead_kb 128, the calling thread's
/// CPU time from getrusage): the read-ahead calls in 4 MiB windows took 0.08-0.12 s and the populate after them (minor
/// faults only) 0.04-0.05 s, so at 1.5-3.3 GiB/s the sweep wants 20-50% of a core; the populate of a mapping given the
/// huge-page advice took 0.013 s, reading included. Eight threads at nice 10 together may take up to 30% of two cores
/// from an init that keeps both busy, enough for all of that; one thread at nice 10 gets about a tenth of the core it
/// shares with a busy nice-0 thread, until the init is done and the cores are free. Measured with <c>overlap --init-ms 200 --init-threads 2</c> (2 GiB, 2 of 16 cores by taskset, a quiet VM,
/// 1.5 GiB/s disk, reads in windows, 3 repetitions): the init took 1.29x its time with no prefault beside the eight
/// threads, 1.16x beside the reader with helpers at nice 19, 1.62x with the reader at nice 0; the request was ready at
/// 0.77x, 0.89x and 0.94x the time of <c>Run</c> after the init. The helpers run at nice 10 all the same, not 19: a
/// nice-19 thread gets about 1% of a core beside nice-0 work, and one in the middle of its 32 MiB chunk when the
/// engine disposes the handle kept <c>Dispose</c> waiting 0.6-2.1 s with two busy threads on two cores (6.3 s with
/// eight); at nice 10, 0.12-0.20 s.
/// </para>
/// <para>
/// Why not where the huge-page advice reads 2 MiB folios: there the sweep costs the CPU next to nothing, and on the
/// same machine (5 repetitions, twice each) the split cost the init as much as the eight threads (1.09-1.11x against
/// 1.11-1.14x; its threads waited 13-19 ms for a core against 15-26 ms, by schedstat) and readied the request later
/// (0.85-0.89x of Run after the init against 0.77-0.85x): one thread populating reads one stream. Helpers at
/// <c>SCHED_IDLE</c> cost the init the same as at nice 19 (1.15x, 28 ms of waiting), and would make Dispose wait longer still.
/// </para>
/// </remarks>
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
/// The huge-page advice stays on a VM that reports free pages, and a mapping read in windows stays in windows
/// (<see cref="FileStaging.Prepare"/>): Start, whose init loses the kernel's work for each 4 KiB folio to the sweep.
/// </param>
internal readonly record struct SweepThreads(int Threads, ThreadPriority Priority, int Helpers = 0, ThreadPriority HelperPriority = ThreadPriority.Normal,
    long ReadAheadBytes = 0, bool TouchesAfterPopulate = true, bool KeepsHugePageAdvice = false)
{
    /// <summary>How far Start's reads run ahead of its sweep: four default chunks; two 32 MiB reads in flight already reach the development VM's disk limit.</summary>
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
