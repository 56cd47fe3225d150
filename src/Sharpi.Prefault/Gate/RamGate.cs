namespace Sharpi.Prefault;

/// <summary>How the RAM-fit heuristic limits a prefault.</summary>
public enum RamGate
{
    /// <summary>
    /// Prefault only what fits in the memory that can hold it, a budget of the RAM fraction times
    /// <c>min(MemAvailable + bytes already resident, cgroup limit - cgroup use)</c> (of the figures known; with none
    /// known, no limit); when the regions do not all fit, prefault them in the order given until the budget is used
    /// (a partial prefault).
    /// </summary>
    FitsInRam = 0,

    /// <summary>Prefault everything, whatever memory is free (the kill switch still wins).</summary>
    Always = 1,
}
