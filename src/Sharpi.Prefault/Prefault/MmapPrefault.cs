namespace Sharpi.Prefault;

/// <summary>
/// Makes mapped regions resident before the first request needs them.
/// The data flow (see <c>MmapPrefault.Run.cs</c>): regions -> <c>SHARPI_PREFAULT</c> gate -> merge -> plan with residency
/// -> RAM-fit decision -> mechanism -> parallel sweep -> result.
/// </summary>
public static partial class MmapPrefault
{
    /// <summary>
    /// The pure decision, arguments checked: whether to prefault and how much, from the operators' mode, the bytes still to
    /// come in and the memory figures; an unknown figure is left out. Touches no memory, reads no environment.
    /// </summary>
    /// <returns>
    /// No limit under force, <see cref="RamGate.Always"/> or no known figure, or where
    /// <c>bytesNeeded &lt;= ramFraction * min(MemAvailable + bytesAlreadyResident, cgroup room)</c>; a partial run within
    /// a smaller budget; no run when off or the budget is zero.
    /// </returns>
    /// <exception cref="ArgumentOutOfRangeException">A negative byte count, a fraction outside (0, 1], or an undefined enum value.</exception>
    internal static RamGateDecision Decide(PrefaultMode mode, long bytesNeeded, long bytesAlreadyResident, MemoryFigures memory,
        RamGate gate = RamGate.FitsInRam, double ramFraction = RamGateDecision.DefaultFraction)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(bytesNeeded);
        ArgumentOutOfRangeException.ThrowIfNegative(bytesAlreadyResident);
        ThrowHelper.ThrowIfNegativeFigures(memory);
        ThrowHelper.ThrowIfInvalidFraction(ramFraction);
        ThrowHelper.ThrowIfUndefined(gate);
        ThrowHelper.ThrowIfUndefined(mode);
        return new OperatorSettings(mode, ramFraction).Decide(bytesNeeded, bytesAlreadyResident, memory, gate);
    }
}
