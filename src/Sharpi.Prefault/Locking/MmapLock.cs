using System.Runtime.InteropServices;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Sharpi.Prefault;

/// <summary>
/// Locks mapped regions in memory (mlock on Linux and macOS, VirtualLock on Windows) so the kernel cannot evict them
/// under memory pressure. The data flow: regions -> merge -> round outward to pages -> lock each range -> lease.
/// </summary>
public static class MmapLock
{
    /// <summary>
    /// Locks the regions' pages (rounded outward to whole pages) and returns the lease that unlocks them on dispose.
    /// A lock the OS refuses (RLIMIT_MEMLOCK, no permission, a working-set quota) is reported in the lease and
    /// logged, never thrown.
    /// </summary>
    /// <exception cref="ArgumentNullException"><paramref name="regions"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A region has a negative length or runs past the address space.</exception>
    public static LockLease Lock(IReadOnlyList<PrefaultRegion> regions, LockOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(regions);
        return Lock(MmapPrefault.AsSpan(regions), options);
    }

    /// <inheritdoc cref="Lock(IReadOnlyList{PrefaultRegion}, LockOptions?)"/>
    public static LockLease Lock(ReadOnlySpan<PrefaultRegion> regions, LockOptions? options = null)
    {
        RegionSet.Validate(regions, nameof(regions));
        options ??= LockOptions.Default;
        ILogger logger = options.Logger ?? NullLogger.Instance;
        MergedRegion[] pages = PageRanges.Outward(RegionSet.Merge(regions));

        // Count the pages as held before locking them, so a lease disposed meanwhile cannot unlock them under us;
        // all ranges in one registry pass (range by range, the registry's updates made a big lock quadratic).
        var ranges = new (nint Start, nint End)[pages.Length];
        for (int i = 0; i < pages.Length; i++)
        {
            ranges[i] = (pages[i].Start, pages[i].End);
        }

        LockRegistry.Process.Acquire(ranges);
        var locked = new List<(nint Start, nint End)>(pages.Length);
        var refused = new List<(nint Start, nint End)>();
        var failures = new List<RegionFailure>();
        long lockedBytes = 0;
        foreach (MergedRegion r in pages)
        {
            if (PlatformLock.TryLock(r.Start, r.End, out int error))
            {
                locked.Add((r.Start, r.End));
                lockedBytes += r.Length;
                continue;
            }

            refused.Add((r.Start, r.End));
            string reason = PlatformLock.DescribeFailure(error, r.Start, r.End);
            failures.Add(new RegionFailure(r.DisplayName, r.Start, r.Length, error, reason));
            Log.LockFailed(logger, options.Label, r.DisplayName, r.Length, reason);
        }

        // Undo the count of the refused ranges, and any part a failed call may have locked that no other lease holds.
        if (refused.Count > 0)
        {
            LockRegistry.Process.Release(CollectionsMarshal.AsSpan(refused), static (start, end) => PlatformLock.TryUnlock(start, end, out _));
        }

        long requested = RegionSet.TotalBytes(pages);
        if (lockedBytes > 0)
        {
            Log.Locked(logger, options.Label, lockedBytes, requested, locked.Count);
        }

        return new LockLease([.. locked], lockedBytes, requested, failures, logger, options.Label);
    }
}
