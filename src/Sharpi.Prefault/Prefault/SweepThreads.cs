namespace Sharpi.Prefault;

/// <summary>
/// How one run's sweep uses threads, decided by its entry point: <c>Run</c> sweeps on its threads at
/// <see cref="Priority"/>; <c>Start</c>, where it reads in windows, has its background thread read ahead at most
/// <see cref="ReadAheadBytes"/> while <see cref="Helpers"/> sweep beside it at <see cref="HelperPriority"/>
/// (<see cref="StrideSweep.ExecuteBehindReadAhead"/>), else sweeps as Run does. Beside an init it neither touches
/// after a populate nor drops the huge-page advice: both would take the init's cores. docs/mechanisms.md says why.
/// </summary>
internal readonly record struct SweepThreads(int Threads, ThreadPriority Priority, int Helpers = 0, ThreadPriority HelperPriority = ThreadPriority.Normal,
    long ReadAheadBytes = 0, bool TouchesAfterPopulate = true, bool KeepsHugePageAdvice = false)
{
    /// <summary>Four default chunks: enough reads in flight to keep a disk busy.</summary>
    internal const long StartReadAheadBytes = 128L * 1024 * 1024;

    internal bool ReadsAheadOfSweep => ReadAheadBytes > 0;

    /// <summary>The caller waits: the asked priority (normal by default), as many threads as asked.</summary>
    internal static SweepThreads ForRun(PrefaultOptions options) => new(options.MaxDegreeOfParallelism, options.WorkerPriority ?? ThreadPriority.Normal);

    /// <summary>
    /// Below normal unless the caller set a priority; reading ahead, helpers one a processor at most, and no more threads
    /// in all than <see cref="PrefaultOptions.MaxDegreeOfParallelism"/>.
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
