using System.Globalization;
using System.Runtime.InteropServices;

namespace Sharpi.Prefault;

/// <summary>
/// Makes mapped regions resident before the first request needs them.
/// The data flow (see <c>MmapPrefault.Run.cs</c>): regions -> <c>SHARPI_PREFAULT</c> gate -> merge -> plan with residency
/// -> RAM-fit decision -> mechanism -> parallel sweep -> result.
/// </summary>
public static partial class MmapPrefault
{
    /// <summary>
    /// The pure decision: whether to prefault, and how much, from the operators' mode, the bytes that must still
    /// come in, and the memory figures. Touches no memory and reads no environment.
    /// </summary>
    /// <param name="mode">The operators' mode (<c>SHARPI_PREFAULT</c>, parsed).</param>
    /// <param name="bytesNeeded">Bytes of the (merged) regions that are not resident yet.</param>
    /// <param name="bytesAlreadyResident">Bytes of the regions already in the page cache (they occupy memory that can hold them).</param>
    /// <param name="memory">The machine's figures; unknown figures never block a prefault.</param>
    /// <param name="gate">The caller's RAM gate.</param>
    /// <param name="ramFraction">The fraction (0 &lt; f &lt;= 1) of memory the prefault may fill.</param>
    /// <returns>
    /// Run with no limit when the mode is force, the gate is <see cref="RamGate.Always"/>, a figure is unknown,
    /// or <c>bytesNeeded &lt;= ramFraction * min(MemAvailable + bytesAlreadyResident, cgroup limit - cgroup use)</c>; a partial
    /// run limited to that budget when it is smaller; no run when the mode is off or the budget is zero.
    /// </returns>
    /// <exception cref="ArgumentOutOfRangeException">A byte count is negative, the fraction is not in (0, 1], or an enum value is undefined.</exception>
    public static PrefaultDecision Decide(PrefaultMode mode, long bytesNeeded, long bytesAlreadyResident, MemoryFigures memory,
        RamGate gate = RamGate.FitsInRam, double ramFraction = PrefaultOptions.DefaultRamFraction)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(bytesNeeded);
        ArgumentOutOfRangeException.ThrowIfNegative(bytesAlreadyResident);
        ThrowHelper.ThrowIfInvalidFraction(ramFraction);
        ThrowHelper.ThrowIfUndefined(gate);
        ThrowHelper.ThrowIfUndefined(mode);

        switch (mode)
        {
            case PrefaultMode.Off:
                return new PrefaultDecision(false, false, 0, mode, "SHARPI_PREFAULT is off: prefault switched off by the operator");
            case PrefaultMode.Force:
                return new PrefaultDecision(true, false, long.MaxValue, mode, "SHARPI_PREFAULT is force: RAM gate bypassed");
        }

        if (gate == RamGate.Always)
        {
            return new PrefaultDecision(true, false, long.MaxValue, mode, "RamGate.Always: RAM gate bypassed");
        }

        if (bytesNeeded == 0)
        {
            return new PrefaultDecision(true, false, long.MaxValue, mode, "everything is already resident; mapping the pages only");
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
            return new PrefaultDecision(true, false, long.MaxValue, mode, "memory figures unknown; running without a RAM limit");
        }

        long budget = (long)Math.Floor(ramFraction * capacity.Value);
        string frame = string.Create(CultureInfo.InvariantCulture, $"{Sizes.Format(bytesNeeded)} to load, budget {Sizes.Format(budget)} ({ramFraction:G3} x {basis})");
        if (bytesNeeded <= budget)
        {
            return new PrefaultDecision(true, false, budget, mode, $"fits: {frame}");
        }

        if (budget <= 0)
        {
            return new PrefaultDecision(false, false, 0, mode, $"does not fit: {frame}");
        }

        return new PrefaultDecision(true, true, budget, mode, $"does not fit: {frame}; prefaulting regions in the order given up to the budget");
    }

    private static long SaturatingAdd(long a, long b) => a > long.MaxValue - b ? long.MaxValue : a + b;

    /// <summary>A span over a list without copying where it is an array or a List; a copy otherwise.</summary>
    internal static ReadOnlySpan<PrefaultRegion> AsSpan(IReadOnlyList<PrefaultRegion> regions) => regions switch
    {
        PrefaultRegion[] array => array,
        List<PrefaultRegion> list => CollectionsMarshal.AsSpan(list),
        _ => regions.ToArray(),
    };
}
