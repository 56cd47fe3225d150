using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Sharpi.Prefault;

/// <summary>
/// Hands back the pages of mapped weights whose bytes were already copied out (repacked, uploaded to a GPU), so they
/// stop counting in the process's RSS.
/// </summary>
public static class MmapReclaim
{
    /// <summary>
    /// Releases the whole pages inside the regions with <c>madvise</c> (<see cref="ReclaimOptions.Mechanism"/>); pages
    /// the kernel keeps are reported in <see cref="ReclaimResult.Skipped"/>.
    /// </summary>
    /// <exception cref="ArgumentNullException"><paramref name="regions"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A region has a negative length or runs past the address space.</exception>
    /// <exception cref="ArgumentException">
    /// A region lies (partly) in memory whose pages cannot be dropped without losing data (anonymous, hugetlb, a
    /// writable view) or that is not mapped. Nothing was released; the message names the regions.
    /// </exception>
    public static ReclaimResult Release(IReadOnlyList<PrefaultRegion> regions, ReclaimOptions? options = null)
        => Release(RegionList.Checked(regions), options);

    private static ReclaimResult Release(ReadOnlySpan<PrefaultRegion> regions, ReclaimOptions? options)
    {
        options ??= ReclaimOptions.Default;
        ILogger logger = options.Logger ?? NullLogger.Instance;
        MergedRegion[] merged = RegionSet.Merge(regions);
        long requested = RegionSet.TotalBytes(merged);
        if (!OperatingSystem.IsLinux())
        {
            return NotRun(false, "reclaim needs Linux (madvise frees pages at once there, and /proc/self/smaps shows whether a view was written); nothing was released",
                requested, merged.Length, options.Label, logger);
        }

        return ReleaseLinux(merged, requested, options.Mechanism, options.Label, logger);
    }

    [SupportedOSPlatform("linux")]
    private static unsafe ReclaimResult ReleaseLinux(MergedRegion[] merged, long requested, ReclaimMechanism mechanism, string label, ILogger logger)
    {
        if (merged.Length == 0)
        {
            return NotRun(true, "no regions to release", 0, 0, label, logger);
        }

        // The direct look-up serves read-only shared file views; anything else is planned from /proc/self/smaps.
        ReclaimPlan? plan = ReclaimPlan.TryBuildFromLookup(merged, LockRegistry.Process.Held());
        if (plan is null)
        {
            SmapsSnapshot smaps = ProcMaps.ReadSelfSmaps();
            if (smaps.Maps.Length == 0)
            {
                return NotRun(true, $"{ProcMaps.SelfSmapsPath} could not be read, so no mapping can be proven safe to drop; nothing was released",
                    requested, merged.Length, label, logger);
            }

            plan = ReclaimPlan.Build(merged, smaps, LockRegistry.Process.Held());
        }

        if (plan.Refusals.Count > 0)
        {
            Log.ReclaimRefused(logger, label, plan.Refusals.Count);
            ReclaimMetrics.Record(label, 0, 0, requested);
            ThrowHelper.ThrowReclaimRefused(plan.Refusals, "regions");
        }

        bool pageOut = mechanism == ReclaimMechanism.PageOut;
        if (pageOut && plan.Release.Length > 0 && !IsPageOutSupported(plan.Release[0].Start))
        {
            return NotRun(false, "this kernel has no MADV_PAGEOUT (Linux 5.4 and later), the default ReclaimMechanism.PageOut; nothing was released. "
                + "ReclaimMechanism.DontNeed releases on any kernel, where no thread remaps the regions while Release runs",
                requested, merged.Length, label, logger);
        }

        (int advice, string call) = pageOut
            ? (Interop.LinuxConstants.MADV_PAGEOUT, "madvise(MADV_PAGEOUT)")
            : (Interop.LinuxConstants.MADV_DONTNEED, "madvise(MADV_DONTNEED)");
        long released = 0;
        var advised = new List<MergedRegion>(plan.Release.Length);
        foreach (MergedRegion r in plan.Release)
        {
            if (Interop.Libc.Madvise((void*)r.Start, (nuint)r.Length, advice) == 0)
            {
                released += r.Length;
                advised.Add(r);
            }
            else
            {
                // EINVAL here means the range was locked after the check (mlock by another thread).
                PlatformError error = PlatformError.LastErrno(call);
                plan.Skipped.Add(new RegionFailure(r.DisplayName, r.Start, r.Length, error, $"{call} failed: {error.Describe()}"));
            }
        }

        if (pageOut)
        {
            // MADV_PAGEOUT says nothing of the pages it kept: read back which ones this process still maps.
            released -= KeptMapped(advised, plan.Skipped);
        }

        foreach (RegionFailure s in plan.Skipped)
        {
            Log.KeptResident(logger, label, s.Name, s.Length, s.Message);
            if (s.Error.IsError)
            {
                Log.CallFailed(logger, label, s.Address, s.Length, s.Error);
            }
        }

        Log.Released(logger, label, released, requested, call, plan.Skipped.Count);
        long kept = 0;
        foreach (RegionFailure skipped in plan.Skipped)
        {
            kept += skipped.Length;
        }

        ReclaimMetrics.Record(label, released, kept, 0);

        return new ReclaimResult
        {
            IsSupported = true,
            Reason = $"released {Sizes.Format(released)} of {Sizes.Format(requested)} with {call}"
                + (plan.Skipped.Count > 0 ? $"; {plan.Skipped.Count} ranges kept resident (see Skipped)" : string.Empty),
            BytesRequested = requested,
            BytesReleased = released,
            Skipped = plan.Skipped.AsReadOnly(),
            RegionCount = merged.Length,
        };
    }

    /// <summary>The most runs of kept pages reported one by one per range; the rest of the range's are reported as one.</summary>
    internal const int KeptRunsShown = 16;

    /// <summary>Adds to <paramref name="skipped"/> the advised pages still mapped after MADV_PAGEOUT; returns their bytes.</summary>
    [SupportedOSPlatform("linux")]
    private static long KeptMapped(List<MergedRegion> advised, List<RegionFailure> skipped)
    {
        using var pagemap = new ProcPagemap();
        long kept = 0;
        var runs = new List<MappedRun>();
        foreach (MergedRegion r in advised)
        {
            runs.Clear();
            if (!pagemap.TryFind(r.Start, r.End, runs))
            {
                continue;
            }

            for (int i = 0; i < runs.Count; i++)
            {
                MappedRun run = runs[i];
                kept += run.Length;
                if (i < KeptRunsShown)
                {
                    skipped.Add(new RegionFailure(r.DisplayName, run.Start, run.Length, PlatformError.None, KeptReason(run.IsShared)));
                    continue;
                }

                long rest = 0;
                for (int j = i; j < runs.Count; j++)
                {
                    rest += runs[j].Length;
                }

                skipped.Add(new RegionFailure(r.DisplayName, run.Start, rest, PlatformError.None,
                    $"and {runs.Count - i} more runs of pages, {Sizes.Format(rest)} in all from 0x{run.Start:X} to 0x{runs[^1].End:X}, stayed mapped for the same reasons"));
                kept += rest - run.Length;
                break;
            }
        }

        return kept;
    }

    private static string KeptReason(bool shared) => shared
        ? "stayed mapped: its pages are mapped more than once (another view of the file in this process, or another process), and "
          + "MADV_PAGEOUT leaves pages that other mappings use. Dispose the other views first, or use ReclaimMechanism.DontNeed "
          + "where no thread remaps the regions while Release runs."
        : "stayed mapped: the kernel pages a file's pages out only for a process that owns the file or may write it (or holds "
          + "CAP_FOWNER), and keeps a page it cannot take at that moment. A service user reading root-owned weights releases "
          + "nothing with MADV_PAGEOUT: use ReclaimMechanism.DontNeed where no thread remaps the regions while Release runs.";

    private static int s_pageOutSupport; // 0 unknown, 1 yes, -1 no

    /// <summary>Whether the kernel knows MADV_PAGEOUT, asked with an empty range so that it touches nothing.</summary>
    [SupportedOSPlatform("linux")]
    private static unsafe bool IsPageOutSupported(nint pageAligned)
    {
        int known = Volatile.Read(ref s_pageOutSupport);
        if (known == 0)
        {
            known = Interop.Libc.Madvise((void*)pageAligned, 0, Interop.LinuxConstants.MADV_PAGEOUT) == 0 ? 1 : -1;
            Volatile.Write(ref s_pageOutSupport, known);
        }

        return known > 0;
    }

    private static ReclaimResult NotRun(bool supported, string reason, long requested, int regionCount, string label, ILogger logger)
    {
        Log.ReclaimNotRun(logger, label, reason);
        return new ReclaimResult { IsSupported = supported, Reason = reason, BytesRequested = requested, RegionCount = regionCount };
    }
}
