using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>
/// What the operators set for one run, read once from the environment: the <c>SHARPI_PREFAULT</c> mode and the RAM
/// fraction (<c>SHARPI_PREFAULT_RAM_FRACTION</c> when valid, else the caller's). Bad values are warned about here,
/// once per run, and never fail the run.
/// </summary>
internal readonly record struct OperatorSettings(PrefaultMode Mode, double RamFraction)
{
    /// <summary>
    /// The kill switch's decision, decided here and nowhere else in a run: under <c>SHARPI_PREFAULT=off</c> it is the
    /// run's whole decision (nothing is merged, measured or touched, and the RAM gate is never asked); null otherwise.
    /// It is the decision <see cref="MmapPrefault.Decide"/> gives for <see cref="PrefaultMode.Off"/>: one value, made in one place.
    /// </summary>
    internal PrefaultDecision? KillSwitch { get; } = Mode == PrefaultMode.Off ? Off : null;

    /// <summary>The kill switch's decision: nothing runs, and the reason says the operator switched it off.</summary>
    internal static PrefaultDecision Off { get; } = new(false, false, 0, PrefaultMode.Off, "SHARPI_PREFAULT is off: prefault switched off by the operator");

    internal static OperatorSettings Read(double optionsFraction, ILogger log)
    {
        string? modeValue = EnvironmentGate.ReadMode();
        PrefaultMode mode = EnvironmentGate.ParseMode(modeValue, out bool recognized);
        if (!recognized)
        {
            Log.UnknownMode(log, modeValue!.Trim());
        }

        string? fractionValue = EnvironmentGate.ReadFraction();
        double? fraction = EnvironmentGate.ParseFraction(fractionValue, out bool fractionValid);
        if (!fractionValid)
        {
            Log.InvalidFraction(log, fractionValue!, optionsFraction);
        }

        return new OperatorSettings(mode, fraction ?? optionsFraction);
    }
}
