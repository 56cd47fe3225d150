using System.Diagnostics;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Sharpi.Prefault;

public static partial class MmapPrefault
{
    /// <summary>
    /// Makes the regions resident, best effort, and returns when the sweep is done, cancelled or skipped.
    /// Honours the <c>SHARPI_PREFAULT</c> kill switch and the RAM gate (<see cref="PrefaultOptions.RamGate"/>).
    /// </summary>
    /// <param name="regions">
    /// The regions an engine will read, hot ones first. Overlapping regions are merged into one, swept from its lowest
    /// address in the place of the one listed first.
    /// </param>
    /// <param name="options">Settings; every default when null.</param>
    /// <param name="cancellationToken">
    /// Stops the sweep between chunks; the result then has <see cref="PrefaultResult.IsCanceled"/> set. Never throws.
    /// </param>
    /// <returns>What ran and what it covered; failures past the argument checks are reported there, never thrown.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="regions"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A region has a negative length or runs past the address space.</exception>
    /// <remarks>SIGBUS-safe: no page is read in a way that faults fatally, even where a file shrinks while it runs.</remarks>
    public static PrefaultResult Run(IReadOnlyList<PrefaultRegion> regions, PrefaultOptions? options = null, CancellationToken cancellationToken = default)
        => Run(RegionList.Checked(regions), options, cancellationToken);

    private static PrefaultResult Run(ReadOnlySpan<PrefaultRegion> regions, PrefaultOptions? options, CancellationToken cancellationToken)
    {
        options ??= PrefaultOptions.Default;
        try
        {
            return Execute(regions, options, SweepThreads.ForRun(options), readiness: null, cancellationToken);
        }
#pragma warning disable CA1031 // Past the arguments, nothing of a prefault may fail the engine's load.
        catch (Exception ex) when (ex is not ThreadInterruptedException) // an interrupt is the caller's
#pragma warning restore CA1031
        {
            return Failed(options, ex, background: false);
        }
    }

    /// <summary>Logged at Error where the logger still takes it; every sweep thread had stopped.</summary>
    internal static PrefaultResult Failed(PrefaultOptions options, Exception exception, bool background)
    {
        ILogger log = options.Logger ?? NullLogger.Instance;
        try
        {
            if (background)
            {
                Log.BackgroundFailed(log, options.Label, exception);
            }
            else
            {
                Log.RunFailed(log, options.Label, exception);
            }
        }
#pragma warning disable CA1031 // On Start's thread a throw would end the process.
        catch (Exception)
#pragma warning restore CA1031
        {
        }

        return new PrefaultResult { HasRun = false, Reason = $"{(background ? "the background prefault failed" : "the prefault failed")}: {exception.Message}" };
    }

    /// <summary>The run of Run and Start, one named call a step.</summary>
    internal static PrefaultResult Execute(ReadOnlySpan<PrefaultRegion> regions, PrefaultOptions options, SweepThreads threads, RegionReadiness? readiness,
        CancellationToken cancellationToken)
    {
        var run = new RunContext(options, Stopwatch.GetTimestamp(), readiness, cancellationToken);

        // 1. The operators' settings: under the kill switch nothing is touched.
        OperatorSettings operators = OperatorSettings.Read(options.RamFraction, run.Log);
        if (operators.Decision is { ShouldRun: false } off)
        {
            return Finish(run, off, plan: null, sweep: default);
        }

        // A Dispose right after Start: nothing is measured.
        if (cancellationToken.IsCancellationRequested)
        {
            return Finish(run, CancelledBeforeTheSweep, plan: null, sweep: CancelledBefore);
        }

        // 2. Merge, in the caller's order.
        MergedRegion[] merged = readiness?.Merge(regions) ?? RegionSet.Merge(regions);
        if (merged.Length == 0)
        {
            return Finish(run, NothingToDo("no regions to prefault (all empty)"), plan: null, sweep: default);
        }

        // 3. The plan: the mappings and residency.
        PrefaultPlan plan = PrefaultPlan.Measure(merged, run.Failures);
        if (plan.Regions.Length == 0)
        {
            string nothing = plan.BytesInHoles > 0 ? "nothing to read: the regions are holes of sparse files" : "none of the regions is mapped";
            return Finish(run, NothingToDo(nothing), plan, sweep: default);
        }

        // 4. The decision and its budget.
        MemoryFigures memory = operators.WeighsMemory(options.RamGate) ? MemoryFigures.Current() : default;
        RamGateDecision decision = operators.Decide(plan.BytesNeeded, plan.BytesAlreadyResident, memory, options.RamGate);
        if (!decision.ShouldRun)
        {
            return Finish(run, decision, plan, sweep: default);
        }

        PrefaultPlan work = decision.IsPartial ? plan.WithinBudget(decision.BudgetBytes) : plan;
        if (cancellationToken.IsCancellationRequested)
        {
            return Finish(run, CancelledBeforeTheSweep, plan, sweep: CancelledBefore);
        }

        // 5. The mechanism, then the sweep.
        SweepOutcome sweep;
        using (SweepMechanism mechanism = SweepMechanism.Choose(work, options, run.Log, threads))
        {
            sweep = Sweep(work, mechanism, run, threads);
        }

        // 6. The result, in one place.
        long residentAfter = plan.MeasureResidentNow(out long unknownAfter);
        return Finish(run, decision, plan, sweep with { BytesResidentAfter = residentAfter, BytesUnknownAfter = unknownAfter });
    }

    private sealed class RunContext(PrefaultOptions options, long started, RegionReadiness? readiness, CancellationToken cancellationToken)
    {
        internal CancellationToken CancellationToken { get; } = cancellationToken;

        internal RegionReadiness? Readiness { get; } = readiness;

        internal PrefaultOptions Options { get; } = options;

        internal ILogger Log { get; } = options.Logger ?? NullLogger.Instance;

        internal long Started { get; } = started;

        internal List<RegionFailure> Failures { get; } = [];
    }

    private readonly record struct SweepOutcome(PrefaultMethod Method, long Bytes, int Threads, bool IsCanceled, long BytesResidentAfter = 0, long HugePageAdvisedBytes = 0,
        long BytesUnknownAfter = 0, string ReadAhead = "", string Mechanism = "", string Ran = "");

    private static RamGateDecision NothingToDo(string reason) => new(false, false, 0, reason);

    private static readonly RamGateDecision CancelledBeforeTheSweep = NothingToDo("cancelled before the sweep began");

    private static readonly SweepOutcome CancelledBefore = new(PrefaultMethod.None, 0, 0, IsCanceled: true);

    private static SweepOutcome Sweep(PrefaultPlan plan, SweepMechanism mechanism, RunContext run, SweepThreads threadPlan)
    {
        PrefaultOptions options = run.Options;
        MergedRegion[] regions = mechanism.ChecksBeforeTouch ? TouchSafety.Filter(plan.Ranges, plan.Maps, run.Failures) : plan.Ranges;
        if (mechanism.HintsFirst)
        {
            PlatformMemory.Hint(regions, run.Failures);
        }

        long advised = mechanism.Staging?.HugePageAdvisedBytes ?? 0;
        if (!mechanism.SweepsChunks)
        {
            return new SweepOutcome(mechanism.Method, plan.BytesPlanned, 0, false, HugePageAdvisedBytes: advised, ReadAhead: mechanism.Staging?.Describe() ?? string.Empty,
                Mechanism: mechanism.Describe());
        }

        RegionReadiness? readiness = run.Readiness;
        readiness?.Expect(regions);
        var chunks = new ChunkSweep(regions, mechanism);
        long totalBytes = RegionSet.TotalBytes(regions);
        ProgressReporter? progress = options.Progress is null ? null : new ProgressReporter(options.Progress, totalBytes, options.Label, run.Log);

        PopulateMechanism? ran = mechanism.Candidates.Length > 0 ? mechanism.Candidates[0] : null;
        TouchAfter touchAfter = mechanism.TouchAfter;
        TrialOutcome? trial = null;
        MergedRegion[] rest = regions;
        int[]? restParent = null;
        if (mechanism.UnitsEach > 0 && OperatingSystem.IsLinux())
        {
            trial = TrialSweep.Run(regions, mechanism.Candidates, mechanism.UnitsEach, mechanism.Key.ReadAheadBytes, chunks, threadPlan, progress, options.Clock,
                run.CancellationToken);
            ran = mechanism.Candidates[trial.Chosen];
            touchAfter = !threadPlan.TouchesAfterPopulate ? TouchAfter.None
                : trial.TouchesAll ? TouchAfter.All
                : trial.Probe.KernelTouchPays ? mechanism.TouchAfter
                : TouchAfter.None;
            ran.Commit();
            chunks.Use(ran, touchAfter);
            (rest, restParent) = (trial.Rest, trial.RestParent);
            if (!trial.IsCutShort && MechanismTrial.BudgetShareOverride.Value is null)
            {
                MechanismChoice.Remember(mechanism.Key, new MechanismChoice.Choice(ran.Staging.Policy, touchAfter == TouchAfter.All));
            }

            Log.TrialChose(run.Log, options.Label, mechanism, ran, touchAfter, trial);
            if (readiness is not null && !trial.IsCutShort)
            {
                // A region the trial's units took whole is done now; after a cancel, it may not have been swept.
                for (int i = 0; i < regions.Length; i++)
                {
                    if (Array.IndexOf(restParent, i) < 0)
                    {
                        readiness.Swept(regions[i].Order);
                    }
                }
            }
        }

        long restBytes = RegionSet.TotalBytes(rest);
        int restThreads = Math.Min(threadPlan.Threads, StrideSweep.MaxThreads);
        long chunkSize = ran?.ChunkSizeFor(options.ChunkSize, totalBytes, restThreads) ?? options.ChunkSize;
        string readAhead = ran?.Staging.Describe(FileStaging.FinerChunk(chunkSize, options.ChunkSize, totalBytes)) ?? string.Empty;
        Action<int>? regionDone = readiness is null ? null
            : restParent is null ? i => readiness.Swept(regions[i].Order)
            : PiecesDone(regions, restParent, readiness);
        IChunkSweep restChunks = restParent is null ? chunks : new ParentRegions(chunks, restParent);
        var sweep = new StrideSweep(rest, chunkSize, restChunks, regionDone, run.CancellationToken, options.Clock, bytesBefore: trial?.Bytes ?? 0);

        // A warm set has only page tables to fill, often less than a thread start.
        int threads = trial is { IsCutShort: true } || rest.Length == 0 ? 0
            : threadPlan.ReadsAheadOfSweep && ran is { ReadsInWindows: true }
            ? sweep.ExecuteBehindReadAhead(threadPlan.Helpers, threadPlan.HelperPriority, threadPlan.ReadAheadBytes, progress)
            : sweep.Execute(threadPlan.Threads, threadPlan.Priority, progress, helpersOnDemand: plan.BytesNeeded == 0);
        threads = Math.Max(threads, trial?.Threads ?? 0);
        if (rest.Length == 0 || trial is { IsCutShort: true })
        {
            progress?.Complete(sweep.BytesDone);
        }

        chunks.CollectFailures(run.Failures);
        if (chunks.SpansSampled > 0)
        {
            Log.TouchedAfterPopulate(run.Log, options.Label, chunks.SpansTouched, chunks.SpansSampled, chunks.SampledNanosecondsPerPage, TouchAfterPopulate.SlowPageNanoseconds);
        }

        string description = mechanism.Describe(ran, touchAfter, trial);
        bool cancelled = run.CancellationToken.IsCancellationRequested && (sweep.IsCutShort || trial is { IsCutShort: true });
        return new SweepOutcome(mechanism.Method, sweep.BytesDone, threads, cancelled, HugePageAdvisedBytes: ran?.Staging.HugePageAdvisedBytes ?? advised, ReadAhead: readAhead,
            Mechanism: description, Ran: ran?.Name ?? string.Empty);
    }

    /// <summary>A region left in pieces is done with its last piece.</summary>
    private static Action<int> PiecesDone(MergedRegion[] regions, int[] parentOf, RegionReadiness readiness)
    {
        int[] left = new int[regions.Length];
        foreach (int parent in parentOf)
        {
            left[parent]++;
        }

        return piece =>
        {
            int parent = parentOf[piece];
            if (Interlocked.Decrement(ref left[parent]) == 0)
            {
                readiness.Swept(regions[parent].Order);
            }
        };
    }

    /// <summary>Failures go to the regions the pieces came from.</summary>
    private sealed class ParentRegions(ChunkSweep chunks, int[] parentOf) : IChunkSweep
    {
        public long SweepChunk(int region, nint start, nint end, bool readAhead) => chunks.SweepChunk(parentOf[region], start, end, readAhead);

        public void ReadAhead(int region, nint start, nint end) => chunks.ReadAhead(parentOf[region], start, end);
    }

    /// <summary>Every run ends here, skipped or not.</summary>
    private static PrefaultResult Finish(RunContext run, RamGateDecision decision, PrefaultPlan? plan, SweepOutcome sweep)
    {
        bool ran = sweep.Method != PrefaultMethod.None;
        long requested = plan?.BytesRequested ?? 0;
        var result = new PrefaultResult
        {
            HasRun = ran,
            IsPartial = ran && decision.IsPartial,
            Reason = ReasonOf(decision, plan, sweep),
            Bytes = sweep.Bytes,
            BytesAlreadyResident = plan?.BytesAlreadyResident ?? 0,
            BytesAlreadyResidentUnknown = plan?.BytesAlreadyResidentUnknown ?? 0,
            BytesResident = ran ? sweep.BytesResidentAfter : plan?.BytesAlreadyResident ?? 0,
            BytesResidentUnknown = ran ? sweep.BytesUnknownAfter : plan?.BytesAlreadyResidentUnknown ?? 0,
            BytesRequested = requested,
            BytesSkipped = requested - sweep.Bytes,
            Elapsed = ran ? Stopwatch.GetElapsedTime(run.Started) : TimeSpan.Zero,
            Method = sweep.Method,
            Failures = run.Failures.AsReadOnly(),
            IsCanceled = sweep.IsCanceled,
            RegionCount = plan?.Regions.Length ?? 0,
            Threads = sweep.Threads,
            HugePageAdvisedBytes = sweep.HugePageAdvisedBytes,
            ReadAheadDescription = sweep.ReadAhead ?? string.Empty,
            MechanismDescription = sweep.Mechanism ?? string.Empty,
        };

        LogResult(run, result, sweep.Ran ?? string.Empty);
        PrefaultMetrics.Record(run.Options.Label, result);
        return result;
    }

    private static string ReasonOf(RamGateDecision decision, PrefaultPlan? plan, SweepOutcome sweep)
    {
        string reason = sweep.IsCanceled && sweep.Method != PrefaultMethod.None ? $"cancelled after {Sizes.Format(sweep.Bytes)}; {decision.Reason}" : decision.Reason;
        return plan is { BytesInHoles: > 0 } && plan.Regions.Length > 0
            ? $"{reason}; {Sizes.Format(plan.BytesInHoles)} of holes in sparse files left unread (they read as zeros)"
            : reason;
    }

    private static void LogResult(RunContext run, PrefaultResult result, string ran)
    {
        ILogger log = run.Log;
        string label = run.Options.Label;
        if (!result.HasRun)
        {
            Log.Skipped(log, label, result.Reason);
        }
        else if (result.IsPartial)
        {
            Log.PartialRun(log, label, result.Reason);
        }

        foreach (RegionFailure failure in result.Failures)
        {
            Log.RegionFailed(log, label, failure.Name, failure.Length, failure.Message);
            if (failure.Error.IsError)
            {
                Log.CallFailed(log, label, failure.Address, failure.Length, failure.Error);
            }
        }

        if (result.HasRun)
        {
            string method = PrefaultMethodNames.Of(result.Method);
            method = ran.Length == 0 ? method : $"{method} ({ran})";
            Log.Completed(log, label, result.Bytes, result.BytesAlreadyResident, result.Elapsed.TotalSeconds, result.GiBPerSecond, method,
                new PrefaultOutcomeText(result));
            Log.How(log, label, result.MechanismDescription.Length > 0 ? result.MechanismDescription : "no sweep",
                result.ReadAheadDescription.Length > 0 ? result.ReadAheadDescription : "none");
        }
    }
}
