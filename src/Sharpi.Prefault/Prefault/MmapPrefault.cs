namespace Sharpi.Prefault;

/// <summary>Makes mapped regions resident before the first request needs them.</summary>
public static partial class MmapPrefault
{
    /// <summary>
    /// The pure decision, arguments checked: touches no memory, reads no environment. An unknown figure is left out;
    /// the budget is <c>ramFraction * min(MemAvailable + bytesAlreadyResident, cgroup room)</c>.
    /// </summary>
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
