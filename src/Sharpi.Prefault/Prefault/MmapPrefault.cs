using System.Runtime.CompilerServices;
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
    /// come in, and the memory figures. Touches no memory and reads no environment. Past the operators' mode it is the
    /// RAM-fit gate a lock applies too (<see cref="LockOptions.RamGate"/>): the same figures give both the same budget.
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
        return DecideValidated(mode, bytesNeeded, bytesAlreadyResident, memory, gate, ramFraction);
    }

    /// <summary>
    /// <see cref="Decide"/> past its argument checks, for a run whose settings were checked when they were made (the
    /// options at construction, the operators' mode by its parser): the checks' generic enum lookups are no part of an
    /// engine's first call.
    /// </summary>
    internal static PrefaultDecision DecideValidated(PrefaultMode mode, long bytesNeeded, long bytesAlreadyResident, MemoryFigures memory,
        RamGate gate, double ramFraction)
    {
        return mode switch
        {
            PrefaultMode.Off => OperatorSettings.Off,
            PrefaultMode.Force => new PrefaultDecision(true, false, long.MaxValue, mode, "SHARPI_PREFAULT is force: RAM gate bypassed"),
            _ => WithMode(RamFitGate.Decide(bytesNeeded, bytesAlreadyResident, memory, gate, ramFraction), mode),
        };
    }

    private static PrefaultDecision WithMode(RamGateDecision d, PrefaultMode mode) => new(d.ShouldRun, d.IsPartial, d.BudgetBytes, mode, d.Reason);

    /// <summary>
    /// The regions a public list overload was given, as the span its span overload takes: without copying where the
    /// list is an array or a List, a copy otherwise. Throws <see cref="ArgumentNullException"/> for null.
    /// </summary>
    internal static ReadOnlySpan<PrefaultRegion> AsSpan(IReadOnlyList<PrefaultRegion> regions, [CallerArgumentExpression(nameof(regions))] string? name = null)
    {
        ArgumentNullException.ThrowIfNull(regions, name);
        return regions switch
        {
            PrefaultRegion[] array => array,
            List<PrefaultRegion> list => CollectionsMarshal.AsSpan(list),
            _ => regions.ToArray(),
        };
    }

    /// <inheritdoc cref="AsSpan(IReadOnlyList{PrefaultRegion}, string?)"/>
    internal static ReadOnlySpan<PrefaultRegion> AsSpan(PrefaultRegion[] regions, [CallerArgumentExpression(nameof(regions))] string? name = null)
    {
        ArgumentNullException.ThrowIfNull(regions, name);
        return regions;
    }
}
