namespace Sharpi.Prefault;

/// <summary>Makes mapped regions resident before the first request needs them.</summary>
public static partial class MmapPrefault
{
    /// <summary>
    /// The pure decision, its arguments checked: whether to prefault, and how much, from the operators' mode, the bytes
    /// that must still come in, and the memory figures. Touches no memory and reads no environment. Past the operators'
    /// mode (<see cref="OperatorSettings.Decision"/>) it is the RAM-fit gate a lock applies too (<see cref="LockOptions.RamGate"/>).
    /// </summary>
    /// <param name="mode">The operators' mode (<c>SHARPI_PREFAULT</c>, parsed).</param>
    /// <param name="bytesNeeded">Bytes of the (merged) regions that are not resident yet.</param>
    /// <param name="bytesAlreadyResident">Bytes of the regions already in the page cache (they occupy memory that can hold them).</param>
    /// <param name="memory">The machine's figures; an unknown one (null) is left out, and a known one still limits.</param>
    /// <param name="gate">The caller's RAM gate.</param>
    /// <param name="ramFraction">The fraction (0 &lt; f &lt;= 1) of memory the prefault may fill.</param>
    /// <returns>
    /// Run with no limit when the mode is force, the gate is <see cref="RamGate.Always"/>, both figures are unknown,
    /// or <c>bytesNeeded &lt;= ramFraction * min(MemAvailable + bytesAlreadyResident, cgroup limit - cgroup use)</c> (of the
    /// figures known: with one unknown, the other alone sets the budget); a partial run limited to that budget when it
    /// is smaller; no run when the mode is off or the budget is zero.
    /// </returns>
    /// <exception cref="ArgumentOutOfRangeException">
    /// A byte count (of <paramref name="memory"/>'s too) is negative, the fraction is not in (0, 1], or an enum value is undefined.
    /// </exception>
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
