using System.Diagnostics;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Sharpi.Prefault;

public static partial class MmapPrefault
{
    /// <summary>
    /// Makes the regions resident, best effort: reads <c>SHARPI_PREFAULT</c>, merges the regions, measures what is
    /// already resident, applies the RAM-fit gate (see <see cref="Decide"/>), then populates (Linux 5.14+) or hints
    /// and touches every page on parallel threads. Returns when the sweep is done, cancelled or skipped.
    /// </summary>
    /// <param name="regions">The regions an engine will read, hot ones first (a partial prefault keeps that order).</param>
    /// <param name="options">Settings; <see cref="PrefaultOptions.Default"/> when null.</param>
    /// <returns>What ran and what it covered. Failures of a hint or a sweep are reported there, never thrown.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="regions"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A region has a negative length or runs past the address space.</exception>
    public static PrefaultResult Run(IReadOnlyList<PrefaultRegion> regions, PrefaultOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(regions);
        return Run(AsSpan(regions), options);
    }

    /// <inheritdoc cref="Run(IReadOnlyList{PrefaultRegion}, PrefaultOptions?)"/>
    public static PrefaultResult Run(ReadOnlySpan<PrefaultRegion> regions, PrefaultOptions? options = null)
    {
        RegionSet.Validate(regions, nameof(regions));
        return Execute(regions, options ?? PrefaultOptions.Default, options?.WorkerPriority ?? ThreadPriority.Normal);
    }

    /// <summary>Gate -> merge -> residency -> decision -> hint/populate/touch -> result. Shared by Run and Start.</summary>
    internal static PrefaultResult Execute(ReadOnlySpan<PrefaultRegion> regions, PrefaultOptions options, ThreadPriority priority)
    {
        long started = Stopwatch.GetTimestamp();
        ILogger log = options.Logger ?? NullLogger.Instance;

        // 1. The operators' gate, first: under the kill switch nothing is merged, measured or touched.
        string? modeValue = EnvironmentGate.ReadMode();
        PrefaultMode mode = EnvironmentGate.ParseMode(modeValue, out bool recognized);
        if (!recognized)
        {
            Log.UnknownMode(log, modeValue!.Trim());
        }

        if (mode == PrefaultMode.Off)
        {
            return Skip(log, options, Decide(modeValue, 0, 0, default).Reason, 0, 0);
        }

        // 2. Merge: overlapping and duplicate regions count once.
        MergedRegion[] merged = RegionSet.Merge(regions);
        long requested = RegionSet.TotalBytes(merged);
        if (merged.Length == 0)
        {
            return Skip(log, options, "no regions to prefault (all empty)", 0, 0);
        }

        // 3. What is already resident (which also finds ranges that are not mapped), then the RAM-fit decision.
        var failures = new List<RegionFailure>();
        long[] resident = new long[merged.Length];
        merged = MeasureResidency(merged, resident, failures);
        long alreadyResident = Sum(resident);
        long needed = RegionSet.TotalBytes(merged) - alreadyResident;

        double fraction = options.RamFraction;
        string? fractionValue = EnvironmentGate.ReadFraction();
        if (EnvironmentGate.ParseFraction(fractionValue, out bool fractionValid) is double envFraction)
        {
            fraction = envFraction;
        }
        else if (!fractionValid)
        {
            Log.InvalidFraction(log, fractionValue!, fraction);
        }

        MemoryFigures memory = mode == PrefaultMode.Auto && options.RamGate == RamGate.FitsInRam ? MemoryFigures.Current() : default;
        PrefaultDecision decision = Decide(modeValue, needed, alreadyResident, memory, options.RamGate, fraction);
        if (!decision.Run)
        {
            return Skip(log, options, decision.Reason, requested, alreadyResident);
        }

        MergedRegion[] work = decision.Partial ? ApplyBudget(merged, resident, decision.BudgetBytes) : merged;
        if (decision.Partial)
        {
            Log.PartialRun(log, options.Label, decision.Reason);
        }

        // 4. The mechanism, and the sweep.
        PrefaultMethod method;
        long covered;
        bool cancelled = false;
        int threads = 0;
        if (options.Strategy == PrefaultStrategy.HintOnly)
        {
            PlatformMemory.Hint(work, failures);
            method = PrefaultMethod.Hint;
            covered = RegionSet.TotalBytes(work);
        }
        else
        {
            int probeErrno = 0;
            bool populate = options.Strategy == PrefaultStrategy.Auto && PopulateSupport.IsSupported(out probeErrno);
            if (!populate && OperatingSystem.IsLinux() && options.Strategy == PrefaultStrategy.Auto && log.IsEnabled(LogLevel.Debug))
            {
                Log.PopulateUnsupported(log, new ErrnoText(probeErrno));
            }

            if (!populate)
            {
                // A touch cannot fail softly: keep only pages that are mapped, readable and inside the file.
                work = TouchSafety.Filter(work, failures);
                if (!OperatingSystem.IsLinux())
                {
                    // macOS and Windows honour a whole-range hint; on Linux it is capped at the read-ahead
                    // window and leaves small folios behind, so Linux goes straight to the sweep.
                    PlatformMemory.Hint(work, failures);
                }
            }

            var sweep = new StrideSweep(work, options.ChunkSize, populate, options.CancellationToken);
            threads = (int)Math.Min(options.MaxDegreeOfParallelism, Math.Max(1, sweep.ChunkCount));
            ProgressReporter? progress = options.Progress is null ? null : new ProgressReporter(options.Progress, sweep.BytesTotal, options.Label, log);
            sweep.Execute(threads, priority, progress);
            sweep.CollectFailures(failures);
            covered = sweep.BytesDone;
            cancelled = options.CancellationToken.IsCancellationRequested && covered < sweep.BytesTotal;
            method = populate ? PrefaultMethod.Populate : PrefaultMethod.Touch;
        }

        TimeSpan elapsed = Stopwatch.GetElapsedTime(started);
        var result = new PrefaultResult
        {
            Ran = true,
            Partial = decision.Partial,
            Reason = cancelled ? $"cancelled after {Sizes.Format(covered)}; {decision.Reason}" : decision.Reason,
            Bytes = covered,
            BytesAlreadyResident = alreadyResident,
            BytesRequested = requested,
            BytesSkipped = requested - covered,
            Elapsed = elapsed,
            Method = method,
            Failures = failures,
            Cancelled = cancelled,
            RegionCount = merged.Length,
            Threads = threads,
        };
        LogCompleted(log, options.Label, result);
        PrefaultMetrics.Record(options.Label, result);
        return result;
    }

    private static MergedRegion[] MeasureResidency(MergedRegion[] merged, long[] resident, List<RegionFailure> failures)
    {
        if (!Residency.IsSupported)
        {
            return merged;
        }

        using FileCacheProbe probe = FileCacheProbe.Create(merged);
        int kept = 0;
        for (int i = 0; i < merged.Length; i++)
        {
            if (probe.TryCountResident(merged[i].Start, merged[i].End, out long bytes, out int errno))
            {
                resident[kept] = bytes;
                merged[kept++] = merged[i];
            }
            else
            {
                failures.Add(new RegionFailure(merged[i].DisplayName, merged[i].Start, merged[i].Length, errno,
                    $"not mapped: mincore failed, {Errno.Describe(errno)}; skipped"));
            }
        }

        if (kept == merged.Length)
        {
            return merged;
        }

        Array.Resize(ref merged, kept);
        Array.Clear(resident, kept, resident.Length - kept);
        return merged;
    }

    /// <summary>Keeps regions in the caller's order until the not-yet-resident bytes reach the budget; the region that crosses it is cut.</summary>
    internal static MergedRegion[] ApplyBudget(MergedRegion[] merged, long[] resident, long budget)
    {
        var kept = new List<MergedRegion>(merged.Length);
        long left = budget;
        for (int i = 0; i < merged.Length && left > 0; i++)
        {
            long need = merged[i].Length - resident[i];
            if (need <= left)
            {
                kept.Add(merged[i]);
                left -= need;
            }
            else
            {
                // Cutting at the budget in bytes overshoots nothing: resident pages inside the cut only make it cheaper.
                kept.Add(merged[i] with { End = merged[i].Start + (nint)left });
                left = 0;
            }
        }

        return [.. kept];
    }

    private static PrefaultResult Skip(ILogger log, PrefaultOptions options, string reason, long requested, long alreadyResident)
    {
        Log.Skipped(log, options.Label, reason);
        var result = new PrefaultResult
        {
            Ran = false,
            Reason = reason,
            BytesRequested = requested,
            BytesAlreadyResident = alreadyResident,
            BytesSkipped = requested,
            Method = PrefaultMethod.None,
        };
        PrefaultMetrics.Record(options.Label, result);
        return result;
    }

    private static void LogCompleted(ILogger log, string label, PrefaultResult result)
    {
        foreach (RegionFailure failure in result.Failures)
        {
            if (log.IsEnabled(LogLevel.Warning))
            {
                Log.RegionFailed(log, label, failure.Name, new ByteSize(failure.Length), failure.Message);
            }

            if (failure.Errno != 0 && log.IsEnabled(LogLevel.Debug))
            {
                Log.CallFailed(log, label, result.Method == PrefaultMethod.Populate ? "madvise(MADV_POPULATE_READ)" : "mapping check", failure.Address, failure.Length, new ErrnoText(failure.Errno));
            }
        }

        if (log.IsEnabled(LogLevel.Information))
        {
            LogSummary(log, label, result);
        }
    }

    private static void LogSummary(ILogger log, string label, PrefaultResult result)
    {
        string suffix = result.Cancelled ? $"; cancelled, {Sizes.Format(result.BytesSkipped)} left"
            : result.Partial ? $"; partial, {Sizes.Format(result.BytesSkipped)} skipped by the RAM budget"
            : result.Failures.Count > 0 ? $"; {result.Failures.Count} region(s) failed"
            : string.Empty;
        Log.Completed(log, label, new ByteSize(result.Bytes), new ByteSize(result.BytesAlreadyResident), result.Elapsed.TotalSeconds,
            result.GiBPerSecond, MethodNames[(int)result.Method], suffix);
    }

    /// <summary>The methods' names in logs and JSON, indexed by <see cref="PrefaultMethod"/>.</summary>
    internal static readonly string[] MethodNames = ["none", "populate", "touch", "hint"];

    private static long Sum(long[] values)
    {
        long sum = 0;
        foreach (long v in values)
        {
            sum += v;
        }

        return sum;
    }
}
