namespace Sharpi.Prefault;

/// <summary>How the RAM-fit heuristic limits a prefault.</summary>
public enum RamGate
{
    /// <summary>
    /// Take only what fits in the RAM fraction of available memory (the machine's and the cgroup's); when the regions do
    /// not all fit, take them in the order given until the budget is used.
    /// </summary>
    FitsInRam = 0,

    /// <summary>Prefault everything, whatever memory is free (the kill switch still wins).</summary>
    Always = 1,
}
