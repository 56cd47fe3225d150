using System.Diagnostics;
using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>What the RAM gate decided for a lock (<see cref="LockLease.Decision"/>), and why.</summary>
public readonly struct RamGateDecision
{
    internal RamGateDecision(bool shouldRun, bool isPartial, long budgetBytes, string reason)
    {
        ShouldRun = shouldRun;
        IsPartial = isPartial;
        BudgetBytes = budgetBytes;
        Reason = reason;
    }

    /// <summary>True when at least the first <see cref="BudgetBytes"/> bytes may be taken.</summary>
    public bool ShouldRun { get; }

    /// <summary>True when only part of what was asked fits: the regions in the order given until <see cref="BudgetBytes"/> is used.</summary>
    public bool IsPartial { get; }

    /// <summary>How many bytes may be taken; <see cref="long.MaxValue"/> when unlimited.</summary>
    public long BudgetBytes { get; }

    /// <summary>The decision in words, for a log line.</summary>
    public string Reason { get; }

    /// <summary>The decision in words (<see cref="Reason"/>).</summary>
    public override string ToString() => Reason ?? string.Empty;

    // The gate itself, shared by prefault and lock: pure (it reads no environment and touches no memory; the callers read
    // MemoryFigures and count residency), and deaf to the operators' mode, which OperatorSettings applies first.

    /// <summary>The fraction of the memory that can hold the regions a prefault or a lock may fill, unless the caller or the operators say otherwise.</summary>
    internal const double DefaultFraction = 0.8;

    /// <summary>
    /// Run with no limit when the gate is <see cref="RamGate.Always"/>, nothing is needed, or both figures are unknown;
    /// else the budget is <c>ramFraction * min(MemAvailable + bytesAlreadyResident, cgroup limit - cgroup use)</c> of the
    /// figures known (saturating at <see cref="long.MaxValue"/>): run in
    /// full when <paramref name="bytesNeeded"/> fits in it, in part when it is smaller, not at all when it is zero.
    /// The arguments are the caller's, validated (see <c>MmapPrefault.Decide</c>).
    /// </summary>
    internal static RamGateDecision Decide(long bytesNeeded, long bytesAlreadyResident, MemoryFigures memory, RamGate gate, double ramFraction)
    {
        Debug.Assert(bytesNeeded >= 0 && bytesAlreadyResident >= 0 && ramFraction > 0 && ramFraction <= 1);

        if (gate == RamGate.Always)
        {
            return new(true, false, long.MaxValue, "RamGate.Always: RAM gate bypassed");
        }

        if (bytesNeeded == 0)
        {
            return new(true, false, long.MaxValue, "everything is already resident; mapping the pages only");
        }

        long? capacity = null;
        string basis = string.Empty;
        if (memory.AvailableBytes is long available)
        {
            capacity = SaturatingAdd(available, bytesAlreadyResident);
            basis = $"MemAvailable {Sizes.Format(available)} + {Sizes.Format(bytesAlreadyResident)} already cached";
        }

        if (memory.CgroupLimitBytes is long limit)
        {
            // The group's room is its limit less what it already uses and cannot reclaim (its own page cache,
            // the regions' resident pages among it, is reclaimable room).
            long used = memory.CgroupUsedBytes ?? 0;
            long room = Math.Max(0, limit - used);
            if (capacity is null || room < capacity)
            {
                capacity = room;
                basis = used > 0 ? $"cgroup limit {Sizes.Format(limit)} - {Sizes.Format(used)} in use" : $"cgroup limit {Sizes.Format(limit)}";
            }
        }

        if (capacity is null)
        {
            return new(true, false, long.MaxValue, "memory figures unknown; running without a RAM limit");
        }

        // Saturated, not converted: a double at or past 2^63 converts to long.MinValue on .NET 8 x64 (a "budget" of -8 EiB).
        double fraction = Math.Floor(ramFraction * capacity.Value);
        long budget = fraction >= long.MaxValue ? long.MaxValue : (long)fraction;
        string frame = string.Create(CultureInfo.InvariantCulture, $"{Sizes.Format(bytesNeeded)} to load, budget {Sizes.Format(budget)} ({ramFraction:G3} x {basis})");
        if (bytesNeeded <= budget)
        {
            return new(true, false, budget, $"fits: {frame}");
        }

        if (budget <= 0)
        {
            return new(false, false, 0, $"does not fit: {frame}");
        }

        return new(true, true, budget, $"does not fit: {frame}; prefaulting regions in the order given up to the budget");
    }

    /// <summary>
    /// Cuts <paramref name="items"/>, in the order given, to <paramref name="budget"/> bytes of what is not resident yet:
    /// each item costs its length less its resident bytes; the one that crosses the budget is kept for the bytes left,
    /// rounded down to a multiple of <paramref name="granularity"/> (a page, for a lock), and nothing after it is kept,
    /// even an item that would fit. Where the resident pages lie inside an item is not known, so the crossing item's
    /// part is charged as if none of it were resident: resident pages inside it only make it cheaper, never dearer.
    /// </summary>
    internal static BudgetCut Cut(ReadOnlySpan<BudgetItem> items, long budget, long granularity = 1)
    {
        Debug.Assert(granularity > 0);
        long left = budget;
        for (int i = 0; i < items.Length; i++)
        {
            if (left <= 0)
            {
                return new BudgetCut(i, 0);
            }

            long need = items[i].Length - items[i].ResidentBytes;
            if (need > left)
            {
                return new BudgetCut(i, left - (left % granularity));
            }

            left -= need;
        }

        return new BudgetCut(items.Length, 0);
    }

    private static long SaturatingAdd(long a, long b) => a > long.MaxValue - b ? long.MaxValue : a + b;
}

/// <summary>An item of an ordered list the RAM budget cuts: its length, and how much of it is already resident.</summary>
internal readonly record struct BudgetItem(long Length, long ResidentBytes);

/// <summary>
/// Where a budget cuts an ordered list: the first <see cref="WholeItems"/> items are kept whole, the next one (the one
/// that crosses the budget) is kept for its first <see cref="CrossingLength"/> bytes (0: not at all), the rest not at all.
/// </summary>
internal readonly record struct BudgetCut(int WholeItems, long CrossingLength)
{
    /// <summary>How many items are kept, whole or in part.</summary>
    internal int ItemsKept => WholeItems + (CrossingLength > 0 ? 1 : 0);

    /// <summary>The bytes kept of item <paramref name="index"/>, whose length is <paramref name="length"/>.</summary>
    internal long KeptLength(int index, long length) =>
        index < WholeItems ? length : index == WholeItems ? CrossingLength : 0;
}
