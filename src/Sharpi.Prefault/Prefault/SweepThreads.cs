namespace Sharpi.Prefault;

/// <summary>
/// How the entry point's sweep uses threads. Beside an init (Start) it reads ahead of helpers where it reads in
/// windows, never touches after a populate and keeps the huge-page advice: docs/mechanisms.md says why.
/// </summary>
internal readonly record struct SweepThreads(int Threads, ThreadPriority Priority, int Helpers = 0, ThreadPriority HelperPriority = ThreadPriority.Normal,
    long ReadAheadBytes = 0, bool TouchesAfterPopulate = true, bool KeepsHugePageAdvice = false)
{
    /// <summary>Enough reads in flight to keep a disk busy.</summary>
    internal const long StartReadAheadBytes = 128L * 1024 * 1024;

    internal bool ReadsAheadOfSweep => ReadAheadBytes > 0;

    internal static SweepThreads ForRun(PrefaultOptions options) => new(options.MaxDegreeOfParallelism, options.WorkerPriority ?? ThreadPriority.Normal);

    /// <summary>Below normal unless the caller set a priority; helpers one a processor at most.</summary>
    internal static SweepThreads ForStart(PrefaultOptions options) => new(
        options.MaxDegreeOfParallelism,
        options.WorkerPriority ?? ThreadPriority.BelowNormal,
        Math.Min(options.MaxDegreeOfParallelism - 1, Environment.ProcessorCount),
        options.WorkerPriority ?? ThreadPriority.BelowNormal,
        StartReadAheadBytes,
        TouchesAfterPopulate: false,
        KeepsHugePageAdvice: true);
}
