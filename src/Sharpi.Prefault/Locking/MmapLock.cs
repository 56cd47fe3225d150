using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Sharpi.Prefault;

/// <summary>
/// Locks mapped regions in memory (mlock on Linux and macOS, VirtualLock on Windows) so the kernel cannot evict them
/// under memory pressure.
/// </summary>
public static class MmapLock
{
    /// <summary>
    /// Locks the regions' pages (rounded outward to whole pages), in the order given up to the RAM gate's budget (see
    /// <see cref="LockOptions.RamGate"/>), and returns the lease that unlocks them on dispose.
    /// </summary>
    /// <exception cref="ArgumentNullException"><paramref name="regions"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A region has a negative length or runs past the address space.</exception>
    public static LockLease Lock(IReadOnlyList<PrefaultRegion> regions, LockOptions? options = null)
        => Lock(RegionList.Checked(regions), options, room: null);

    /// <summary>The lock, regions checked; tests give the room under vm.max_map_count, null reads it when needed.</summary>
    internal static LockLease Lock(ReadOnlySpan<PrefaultRegion> regions, LockOptions? options, MappingRoom? room)
    {
        options ??= LockOptions.Default;
        ILogger logger = options.Logger ?? NullLogger.Instance;

        // 1. Merge, drop sparse-file holes, grow to whole pages: neighbours sharing a page lock as one group.
        MergedRegion[] merged = RegionSet.Merge(regions);
        merged = SparseFiles.WithoutHoles(merged, ProcMaps.ReadFor(merged), out _);
        PageGroup[] groups = PageRanges.Outward(merged, out MergedRegion[] pieces);
        var failures = new List<RegionFailure>();
        long requested = 0;
        foreach (PageGroup g in groups)
        {
            requested += g.Range.Length;
        }

        // 2. Copy-on-write views are refused, not locked: the lock would copy every page (see CopyOnWriteViews).
        groups = CopyOnWriteViews.Exclude(groups, pieces, failures);
        long eligible = 0;
        foreach (PageGroup g in groups)
        {
            eligible += g.Range.Length;
        }

        // 3. The RAM gate, regions in order: locked pages cannot be reclaimed, so too large a lock meets the OOM killer.
        RamGateDecision decision = Decide(groups, eligible, options);
        PageGroup[] work = WithinBudget(groups, pieces, decision, failures);
        long overBudget = eligible;
        foreach (PageGroup g in work)
        {
            overBudget -= g.Range.Length;
        }

        if (overBudget > 0)
        {
            Log.LockGated(logger, options.Label, overBudget, decision.Reason);
        }

        // 4. Count the pages as held before locking them, so a lease disposed meanwhile cannot unlock them under us;
        // all ranges in one registry pass (range by range is quadratic).
        var wanted = new (nint Start, nint End)[work.Length];
        long wantedBytes = 0;
        for (int i = 0; i < work.Length; i++)
        {
            wanted[i] = (work[i].Range.Start, work[i].Range.End);
            wantedBytes += work[i].Range.Length;
        }

        (nint Start, nint End)[] ranges = LockRegistry.Process.AcquireUnlocked(wanted, LockedMappings.Read);
        work = Claimed(work, ranges, out long claimedBytes);
        long alreadyLocked = wantedBytes - claimedBytes;
        if (alreadyLocked > 0)
        {
            Log.AlreadyLocked(logger, options.Label, alreadyLocked);
        }

        var run = new LockRun(options.Label, logger, failures, work.Length, LockSplits.Room(work, room ?? MappingRoom.Current()));

        // A throw from here on (out of memory, say) must not leave pages locked with no lease to unlock them.
        using var unwind = new UnwindOnThrow(run, ranges);
        foreach (PageGroup g in work)
        {
            // Past vm.max_map_count the runtime aborts the process.
            if (!run.TryTakeRoom(g, pieces))
            {
                continue;
            }

            if (run.TryLock(g.Range, out PlatformError error))
            {
                continue;
            }

            if (g.PieceCount == 1)
            {
                run.Refuse(g.Range, error);
                continue;
            }

            // A group failed: lock it member by member, so each failure names its member.
            foreach (MergedRegion piece in pieces.AsSpan(g.FirstPiece, g.PieceCount))
            {
                if (Clip(piece, g.Range) is MergedRegion part && run.TryTakeRoom(part) && !run.TryLock(part, out PlatformError partError))
                {
                    run.Refuse(part, partError);
                }
            }
        }

        // 5. Undo the count of the refused ranges, and any part a failed call may have locked that no other lease holds.
        run.UndoRefused();

        if (run.LockedBytes > 0)
        {
            Log.Locked(logger, options.Label, run.LockedBytes, requested, run.Locked.Count);
        }

        LockMetrics.Record(options.Label, run.LockedBytes, run.RefusedBytes, overBudget, alreadyLocked);
        var lease = new LockLease([.. run.Locked], run.LockedBytes, requested, alreadyLocked, failures, decision, logger, options.Label);
        unwind.Complete();
        return lease;
    }

    /// <summary>The RAM gate's decision for pinning every requested byte, resident ones counted as already held.</summary>
    private static RamGateDecision Decide(PageGroup[] groups, long requested, LockOptions options)
    {
        if (requested == 0)
        {
            return new RamGateDecision(true, false, long.MaxValue, "no regions to lock");
        }

        if (options.RamGate == RamGate.Always)
        {
            return Decide(requested, 0, default, options);
        }

        // Unknown figures never limit, so counting residency would change nothing.
        MemoryFigures memory = MemoryFigures.Current();
        if (memory.AvailableBytes is null && memory.CgroupLimitBytes is null)
        {
            return Decide(requested, 0, memory, options);
        }

        // mincore alone: no file is opened for a lock's budget.
        long resident = FileCacheProbe.CountResident(Array.ConvertAll(groups, static g => g.Range), maps: []);
        return Decide(requested, resident, memory, options);
    }

    /// <summary>The prefault's RAM gate over the figures given; <c>SHARPI_PREFAULT</c> does not apply to locks.</summary>
    internal static RamGateDecision Decide(long requested, long resident, MemoryFigures memory, LockOptions options) =>
        RamGateDecision.Decide(requested, resident, memory, options.RamGate, options.RamFraction);

    /// <summary>The groups that fit in the budget, in the order given, the one crossing it cut to its whole pages within.</summary>
    private static PageGroup[] WithinBudget(PageGroup[] groups, MergedRegion[] pieces, RamGateDecision decision, List<RegionFailure> failures)
    {
        if (decision.ShouldRun && !decision.IsPartial)
        {
            return groups;
        }

        string reason = $"not locked: past the RAM gate's budget ({decision.Reason}). Locked pages cannot be reclaimed, so a lock "
            + "larger than the memory that can hold it ends in the OOM killer. Lock fewer regions, free memory, or set "
            + "LockOptions.RamGate to RamGate.Always to lock anyway.";
        BudgetCut budget = RamGateDecision.Cut(Items(groups), decision.ShouldRun ? decision.BudgetBytes : 0, Pages.Size);
        var work = new List<PageGroup>(budget.ItemsKept);
        for (int i = 0; i < groups.Length; i++)
        {
            PageGroup g = groups[i];
            nint cut = g.Range.Start + (nint)budget.KeptLength(i, g.Range.Length);
            if (cut != g.Range.Start)
            {
                work.Add(g with { Range = g.Range with { End = cut } });
            }

            foreach (MergedRegion piece in pieces.AsSpan(g.FirstPiece, g.PieceCount))
            {
                if ((nuint)piece.End > (nuint)cut)
                {
                    nint start = (nuint)piece.Start > (nuint)cut ? piece.Start : cut;
                    failures.Add(new RegionFailure(piece.DisplayName, start, piece.End - start, PlatformError.None, reason));
                }
            }
        }

        return [.. work];
    }

    /// <summary>The sorted claimed ranges as groups of their own, with their group's members.</summary>
    private static PageGroup[] Claimed(PageGroup[] groups, (nint Start, nint End)[] claimed, out long claimedBytes)
    {
        claimedBytes = 0;
        var parts = new List<PageGroup>(claimed.Length);
        foreach (PageGroup g in groups)
        {
            for (int k = AddressRanges.FirstEndingAfter(claimed, g.Range.Start); k < claimed.Length && (nuint)claimed[k].Start < (nuint)g.Range.End; k++)
            {
                parts.Add(g with { Range = g.Range with { Start = claimed[k].Start, End = claimed[k].End } });
                claimedBytes += claimed[k].End - claimed[k].Start;
            }
        }

        return [.. parts];
    }

    /// <summary>The part of <paramref name="piece"/> inside <paramref name="range"/>, or null.</summary>
    internal static MergedRegion? Clip(MergedRegion piece, MergedRegion range)
    {
        nint start = (nuint)piece.Start > (nuint)range.Start ? piece.Start : range.Start;
        nint end = (nuint)piece.End < (nuint)range.End ? piece.End : range.End;
        return (nuint)start < (nuint)end ? piece with { Start = start, End = end } : null;
    }

    /// <summary>The groups as the budget weighs them: every byte, since locking a resident page pins it too.</summary>
    private static BudgetItem[] Items(PageGroup[] groups)
    {
        var items = new BudgetItem[groups.Length];
        for (int i = 0; i < groups.Length; i++)
        {
            items[i] = new BudgetItem(groups[i].Range.Length, 0);
        }

        return items;
    }

    /// <summary>The lock calls of one Lock: what they locked and what the OS refused.</summary>
    private sealed class LockRun(string label, ILogger logger, List<RegionFailure> failures, int capacity, LockSplits room)
    {
        private readonly List<(nint Start, nint End)> _refused = [];
        private readonly LockDiagnosis _diagnosis = new();

        internal List<(nint Start, nint End)> Locked { get; } = new(capacity);

        internal long LockedBytes { get; private set; }

        internal long RefusedBytes { get; private set; }

        internal bool TryLock(MergedRegion r, out PlatformError error)
        {
            if (!PlatformLock.TryLock(r.Start, r.End, out error))
            {
                return false;
            }

            Locked.Add((r.Start, r.End));
            LockedBytes += r.Length;
            return true;
        }

        /// <summary>Reports <paramref name="r"/> as refused, with why and what to do.</summary>
        internal void Refuse(MergedRegion r, PlatformError error)
        {
            _refused.Add((r.Start, r.End));
            RefusedBytes += r.Length;
            string reason = _diagnosis.Describe(error, r.Start, r.End);
            failures.Add(new RegionFailure(r.DisplayName, r.Start, r.Length, error, reason));
            Log.LockFailed(logger, label, r.DisplayName, r.Length, reason);
            if (error.IsError)
            {
                Log.CallFailed(logger, label, r.Start, r.Length, error);
            }
        }

        internal bool IsRefusedUndone { get; private set; }

        /// <summary>Takes the mapping room locking <paramref name="g"/> needs; false, each member reported, where there is none.</summary>
        internal bool TryTakeRoom(PageGroup g, MergedRegion[] pieces)
        {
            if (room.TryTake(g.Range))
            {
                return true;
            }

            if (g.PieceCount == 1)
            {
                RefuseForRoom(g.Range);
                return false;
            }

            _refused.Add((g.Range.Start, g.Range.End));
            foreach (MergedRegion piece in pieces.AsSpan(g.FirstPiece, g.PieceCount))
            {
                if (Clip(piece, g.Range) is MergedRegion part)
                {
                    ReportForRoom(part);
                }
            }

            return false;
        }

        /// <summary><see cref="TryTakeRoom(PageGroup, MergedRegion[])"/> for one member of a group the OS refused.</summary>
        internal bool TryTakeRoom(MergedRegion part)
        {
            if (room.TryTake(part))
            {
                return true;
            }

            RefuseForRoom(part);
            return false;
        }

        internal void UndoRefused()
        {
            if (_refused.Count > 0)
            {
                LockRegistry.Process.Release(CollectionsMarshal.AsSpan(_refused), Unlock);
            }

            IsRefusedUndone = true;
        }

        internal static void Unlock(nint start, nint end) => PlatformLock.TryUnlock(start, end, out _);

        private void RefuseForRoom(MergedRegion r)
        {
            _refused.Add((r.Start, r.End));
            ReportForRoom(r);
        }

        private void ReportForRoom(MergedRegion r)
        {
            RefusedBytes += r.Length;
            string reason = room.Describe();
            failures.Add(new RegionFailure(r.DisplayName, r.Start, r.Length, PlatformError.None, reason));
            Log.LockFailed(logger, label, r.DisplayName, r.Length, reason);
        }
    }

    /// <summary>Unlocks what a lock call counted and locked if it throws before its lease exists.</summary>
    private sealed class UnwindOnThrow(LockRun run, (nint Start, nint End)[] ranges) : IDisposable
    {
        private bool _completed;

        internal void Complete() => _completed = true;

        public void Dispose()
        {
            if (!_completed)
            {
                // This call holds every counted range until the refused ones are let go, then only the locked ones.
                LockRegistry.Process.Release(run.IsRefusedUndone ? CollectionsMarshal.AsSpan(run.Locked) : ranges, LockRun.Unlock);
            }
        }
    }
}
