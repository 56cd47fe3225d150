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

    /// <summary>True when only part of what was asked fits.</summary>
    public bool IsPartial { get; }

    /// <summary>How many bytes may be taken; <see cref="long.MaxValue"/> when unlimited.</summary>
    public long BudgetBytes { get; }

    /// <summary>The decision in words, for a log line.</summary>
    public string Reason { get; }

    /// <summary>The decision in words (<see cref="Reason"/>).</summary>
    public override string ToString() => Reason ?? string.Empty;

    // Pure, shared by prefault and lock; OperatorSettings applies the operators' mode first.

    /// <summary>The default RAM fraction.</summary>
    internal const double DefaultFraction = 0.8;

    /// <summary>Budget = <c>ramFraction * min(MemAvailable + resident, cgroup room)</c>; unlimited for Always or unknown figures.</summary>
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
            // Room: limit less unreclaimable use (its page cache is reclaimable).
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

    /// <summary>Cuts <paramref name="items"/> in order to <paramref name="budget"/> non-resident bytes; nothing after the crossing item.</summary>
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

/// <summary>An item the RAM budget cuts: length and resident bytes.</summary>
internal readonly record struct BudgetItem(long Length, long ResidentBytes);

/// <summary>Where a budget cuts an ordered list: whole items, then part of the crossing one.</summary>
internal readonly record struct BudgetCut(int WholeItems, long CrossingLength)
{
    /// <summary>How many items are kept, whole or in part.</summary>
    internal int ItemsKept => WholeItems + (CrossingLength > 0 ? 1 : 0);

    /// <summary>The bytes kept of item <paramref name="index"/>, whose length is <paramref name="length"/>.</summary>
    internal long KeptLength(int index, long length) =>
        index < WholeItems ? length : index == WholeItems ? CrossingLength : 0;
}
