using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault.Cli.Commands;

/// <summary>
/// The library's decision (<see cref="OperatorSettings.Decide"/>: the operators' mode, then the RAM-fit gate) over a
/// whole selection, with <c>SHARPI_PREFAULT</c> and <c>SHARPI_PREFAULT_RAM_FRACTION</c> read as a run reads them, for <c>keep</c>:
/// it asks whether everything it keeps warm fits (what is resident counts, as it occupies the same memory), where a
/// prefault asks only whether what is missing does.
/// </summary>
internal static class SelectionGate
{
    /// <summary>
    /// The decision for <paramref name="selectionBytes"/> as if none of it were resident; its budget is how much of the
    /// selection may be held. A bad operators' value is warned about on <paramref name="log"/> as a run warns about it.
    /// </summary>
    public static RamGateDecision Decide(RamGate gate, long selectionBytes, ILogger log)
    {
        OperatorSettings settings = OperatorSettings.Read(RamGateDecision.DefaultFraction, log);
        return settings.Decide(selectionBytes, 0, MemoryFigures.Current(), gate);
    }
}
