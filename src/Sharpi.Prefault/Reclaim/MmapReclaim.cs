using System.Runtime.Versioning;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Sharpi.Prefault;

/// <summary>
/// Hands back the pages of mapped weights whose bytes were already copied out (repacked, uploaded to a GPU), so
/// they stop counting in the process's RSS. The mapping stays valid: a later read faults the same bytes back in
/// from the file (from the page cache when it still holds them). Linux only; elsewhere a no-op that says so.
/// The data flow: regions -> merge -> check every mapping (refuse, skip locked) -> round inward to pages -> MADV_DONTNEED.
/// </summary>
public static class MmapReclaim
{
    /// <summary>
    /// Releases the whole pages inside the regions (rounded inward: a page that also holds bytes outside the regions
    /// stays) with <c>madvise(MADV_DONTNEED)</c>. Locked ranges are skipped and reported in the result.
    /// </summary>
    /// <exception cref="ArgumentNullException"><paramref name="regions"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A region has a negative length or runs past the address space.</exception>
    /// <exception cref="ArgumentException">
    /// A region lies (partly) in memory whose pages cannot be dropped without losing data or that is not mapped:
    /// anonymous memory, hugetlb memory, a writable view (shared, or copy-on-write whether written or not). Nothing was released;
    /// the message names the regions and says why.
    /// </exception>
    public static ReclaimResult Release(IReadOnlyList<PrefaultRegion> regions, ReclaimOptions? options = null)
        => Release(MmapPrefault.AsSpan(regions), options);

    /// <inheritdoc cref="Release(IReadOnlyList{PrefaultRegion}, ReclaimOptions?)"/>
    /// <remarks>An exact match for arrays: without it, C# 12 and 13 find an array argument ambiguous (CS0121) between the list and span overloads.</remarks>
    public static ReclaimResult Release(PrefaultRegion[] regions, ReclaimOptions? options = null)
        => Release(MmapPrefault.AsSpan(regions), options);

    /// <inheritdoc cref="Release(IReadOnlyList{PrefaultRegion}, ReclaimOptions?)"/>
    public static ReclaimResult Release(ReadOnlySpan<PrefaultRegion> regions, ReclaimOptions? options = null)
    {
        RegionSet.Validate(regions, nameof(regions));
        options ??= ReclaimOptions.Default;
        ILogger logger = options.Logger ?? NullLogger.Instance;
        MergedRegion[] merged = RegionSet.Merge(regions);
        long requested = RegionSet.TotalBytes(merged);
        if (!OperatingSystem.IsLinux())
        {
            return NotRun(false, "reclaim needs Linux (MADV_DONTNEED frees pages at once there, and /proc/self/smaps shows whether a view was written); nothing was released",
                requested, merged.Length, options.Label, logger);
        }

        return ReleaseLinux(merged, requested, options.Label, logger);
    }

    [SupportedOSPlatform("linux")]
    private static unsafe ReclaimResult ReleaseLinux(MergedRegion[] merged, long requested, string label, ILogger logger)
    {
        if (merged.Length == 0)
        {
            return NotRun(true, "no regions to release", 0, 0, label, logger);
        }

        // Issue 26 (release at the cost of its bytes): ranges wholly in read-only shared file views are planned from a
        // direct look-up of their mappings (ReclaimPlan.Lookup.cs); anything else from /proc/self/smaps, as before.
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

        long released = 0;
        foreach (MergedRegion r in plan.Release)
        {
            if (Interop.Libc.Madvise((void*)r.Start, (nuint)r.Length, Interop.LinuxConstants.MADV_DONTNEED) == 0)
            {
                released += r.Length;
            }
            else
            {
                // EINVAL here means the range was locked after the check (mlock by another thread).
                PlatformError error = PlatformError.LastErrno("madvise(MADV_DONTNEED)");
                plan.Skipped.Add(new RegionFailure(r.DisplayName, r.Start, r.Length, error, $"madvise(MADV_DONTNEED) failed: {error.Describe()}"));
            }
        }

        foreach (RegionFailure s in plan.Skipped)
        {
            Log.KeptResident(logger, label, s.Name, s.Length, s.Message);
            if (s.Error.IsError)
            {
                Log.CallFailed(logger, label, s.Address, s.Length, s.Error);
            }
        }

        Log.Released(logger, label, released, requested, plan.Skipped.Count);
        long kept = 0;
        foreach (RegionFailure skipped in plan.Skipped)
        {
            kept += skipped.Length;
        }

        ReclaimMetrics.Record(label, released, kept, 0);

        return new ReclaimResult
        {
            IsSupported = true,
            Reason = $"released {Sizes.Format(released)} of {Sizes.Format(requested)}"
                + (plan.Skipped.Count > 0 ? $"; {plan.Skipped.Count} ranges kept resident (see Skipped)" : string.Empty),
            BytesRequested = requested,
            BytesReleased = released,
            Skipped = new FailureList(plan.Skipped),
            RegionCount = merged.Length,
        };
    }

    private static ReclaimResult NotRun(bool supported, string reason, long requested, int regionCount, string label, ILogger logger)
    {
        Log.ReclaimNotRun(logger, label, reason);
        return new ReclaimResult { IsSupported = supported, Reason = reason, BytesRequested = requested, RegionCount = regionCount };
    }
}
