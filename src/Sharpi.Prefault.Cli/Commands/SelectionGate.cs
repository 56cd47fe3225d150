using System.Globalization;

namespace Sharpi.Prefault.Cli.Commands;

/// <summary>
/// The library's RAM-fit decision (<see cref="MmapPrefault.Decide"/>) over a whole selection, with the operators'
/// <c>SHARPI_PREFAULT</c> mode and <c>SHARPI_PREFAULT_RAM_FRACTION</c> read as the library reads them, for <c>keep</c>:
/// it asks whether everything it keeps warm fits (what is resident counts, as it occupies the same memory), where a
/// prefault asks only whether what is missing does.
/// </summary>
internal static class SelectionGate
{
    /// <summary>The decision for <paramref name="selectionBytes"/> as if none of it were resident; its budget is how much of the selection may be held.</summary>
    public static PrefaultDecision Decide(RamGate gate, long selectionBytes) =>
        MmapPrefault.Decide(Mode(), selectionBytes, 0, MemoryFigures.Current(), gate, Fraction());

    /// <summary><c>SHARPI_PREFAULT</c>: off (<c>0</c>, <c>off</c>, <c>false</c>), force (<c>1</c>, <c>on</c>, <c>force</c>), else auto.</summary>
    private static PrefaultMode Mode()
    {
        string value = (Environment.GetEnvironmentVariable("SHARPI_PREFAULT") ?? string.Empty).Trim();
        if (CliContext.KillSwitchIsOn(out _))
        {
            return PrefaultMode.Off;
        }

        return value == "1" || value.Equals("on", StringComparison.OrdinalIgnoreCase) || value.Equals("force", StringComparison.OrdinalIgnoreCase)
            ? PrefaultMode.Force
            : PrefaultMode.Auto;
    }

    /// <summary><c>SHARPI_PREFAULT_RAM_FRACTION</c> when it is a number in (0, 1]; the default 0.8 otherwise (the library warns about a bad one).</summary>
    private static double Fraction() =>
        double.TryParse(Environment.GetEnvironmentVariable("SHARPI_PREFAULT_RAM_FRACTION")?.Trim(), NumberStyles.Float, CultureInfo.InvariantCulture, out double f) && f > 0 && f <= 1
            ? f
            : PrefaultOptions.DefaultRamFraction;
}
